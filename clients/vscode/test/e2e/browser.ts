// Shared pieces of the two browser-driven e2e tiers: Debian's Chromium driven by playwright-core.
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Required environment variable, or exit with a message naming it. */
export function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set (scripts/e2e.sh sets it)`);
    process.exit(2);
  }
  return value;
}

export function log(message: string): void {
  console.log(`[e2e] ${message}`);
}
