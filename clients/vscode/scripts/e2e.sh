#!/usr/bin/env bash
# End-to-end tests of the VS Code extension in a real extension host (code-server 4.100.3):
#   (a) a mocha suite inside the extension host runs the contributed commands against the real
#       `groundls serve` on a fixture workspace;
#   (b) headless Chromium (playwright-core) asks a question from the command palette, waits for
#       the answer panel, clicks a citation and checks the editor; a screenshot is saved. Then, in
#       a fresh code-server, it uses VS Code's own surfaces the server backs (Go to Symbol in
#       Workspace, Peek References, the code lenses, the light bulb's "Ask the workspace about
#       this") and saves a screenshot of each into $GROUNDLS_E2E_SHOTS.
# Installs what it needs (apt packages, npm dependencies, code-server into a cache outside git),
# builds the .vsix and exits non-zero when anything fails.
#
# Inputs (environment):
#   GROUNDLS_PYTHON       python that has groundls installed (default: python3 on PATH)
#   GROUNDLS_E2E_CACHE    where code-server is installed, kept between runs and clones
#                         (default: ${XDG_CACHE_HOME:-~/.cache}/groundls-vscode-e2e)
#   GROUNDLS_E2E_OUT      scratch directory of this run (default: clients/vscode/.e2e/run)
#   GROUNDLS_E2E_SCREENSHOT  answer panel screenshot (default: clients/vscode/media/answer-panel.png)
#   GROUNDLS_E2E_SHOTS    folder of the surfaces' screenshots (default: $GROUNDLS_E2E_OUT/shots):
#                         symbol-picker.png, references.png, code-lens.png, code-lens-places.png,
#                         code-action.png
#   GROUNDLS_E2E_TIERS    "exthost ui" (default), or one of them
set -euo pipefail

HERE="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HERE"
GROUNDLS_PYTHON="${GROUNDLS_PYTHON:-$(command -v python3 || true)}"
CODE_SERVER_VERSION=4.100.3
CACHE="${GROUNDLS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/groundls-vscode-e2e}"
OUT="${GROUNDLS_E2E_OUT:-$HERE/.e2e/run}"
SCREENSHOT="${GROUNDLS_E2E_SCREENSHOT:-$HERE/media/answer-panel.png}"
SHOTS="${GROUNDLS_E2E_SHOTS:-$OUT/shots}"
TIERS="${GROUNDLS_E2E_TIERS:-exthost ui}"
RUN_ID="groundls-e2e-$$-$(date +%s)"
export GROUNDLS_E2E_RUN="$RUN_ID"   # every process started below inherits it (used by cleanup)

T0=$(date +%s)
step() { echo; echo "== [$(($(date +%s) - T0))s] $*"; }
die() { echo "e2e.sh: $*" >&2; exit 1; }

# -- 1. system packages ------------------------------------------------------------------------
APT_PACKAGES=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep chromium g++ make)
step "system packages"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "all present"
fi
command -v node >/dev/null || die "node (20.x) is required"
node -e 'process.exit(Number(process.versions.node.split(".")[0]) === 20 ? 0 : 1)' \
  || die "code-server $CODE_SERVER_VERSION needs node 20, found $(node --version)"

# -- 2. the server -----------------------------------------------------------------------------
step "groundls server ($GROUNDLS_PYTHON)"
[ -n "$GROUNDLS_PYTHON" ] && [ -x "$GROUNDLS_PYTHON" ] || die "GROUNDLS_PYTHON is not an executable: '$GROUNDLS_PYTHON'"
"$GROUNDLS_PYTHON" -c "import groundls.lsp.main" \
  || die "$GROUNDLS_PYTHON cannot import groundls.lsp.main: install groundls into it (pip install -e .)"

# -- 3. npm dependencies and code-server -------------------------------------------------------
step "npm dependencies"
if [ ! -x node_modules/.bin/tsc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "up to date"
fi

CS_DIR="$CACHE/code-server"
CS="$CS_DIR/node_modules/.bin/code-server"
step "code-server $CODE_SERVER_VERSION"
if [ -x "$CS" ] && XDG_CONFIG_HOME="$CACHE/xdg" "$CS" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  echo "cached in $CS_DIR"
else
  # @vscode/ripgrep downloads rg from GitHub at install time: seed its cache with Debian's rg.
  rg_tmp="${TMPDIR:-/tmp}"
  mkdir -p "$rg_tmp/vscode-ripgrep-cache-1.15.11" "$CACHE/rg"
  cp "$(command -v rg)" "$CACHE/rg/rg"
  tar -C "$CACHE/rg" -czf "$rg_tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # allowScripts: npm 11.16+ runs dependency install scripts only when allowed.
  cat >"$CS_DIR/package.json" <<'JSON'
{ "name": "groundls-e2e-code-server", "private": true,
  "allowScripts": { "code-server": true, "argon2": true } }
JSON
  (cd "$CS_DIR" && npm_config_yes=true npm_config_unsafe_perm=true \
    npm install --no-audit --no-fund --no-save "code-server@$CODE_SERVER_VERSION")
  XDG_CONFIG_HOME="$CACHE/xdg" "$CS" --version | grep -q "^$CODE_SERVER_VERSION " \
    || die "code-server $CODE_SERVER_VERSION did not install"
fi

# -- 4. build --------------------------------------------------------------------------------
step "build the .vsix and the tests"
rm -f groundls.vsix
npm run -s package
rm -rf out
npx --no-install tsc -p tsconfig.json
rm -rf "$OUT"
mkdir -p "$OUT"
(cd "$OUT" && unzip -q "$HERE/groundls.vsix" -d vsix)
[ -f "$OUT/vsix/extension/dist/extension.js" ] || die "the .vsix has no dist/extension.js"

# -- 5. code-server runs -------------------------------------------------------------------------
CS_PID=""
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Kill what this run started: code-server's process group, then anything else carrying RUN_ID.
cleanup() {
  if [ -n "$CS_PID" ]; then
    kill -TERM -- "-$CS_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
    CS_PID=""
  fi
  for env in /proc/[0-9]*/environ; do
    pid="${env#/proc/}"; pid="${pid%/environ}"
    [ "$pid" = "$$" ] && continue
    if { tr "\\0" "\\n" <"$env"; } 2>/dev/null | grep -qx "GROUNDLS_E2E_RUN=$RUN_ID"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}
trap cleanup EXIT

# start_code_server NAME: fresh user data, settings, workspace copy and index dir under $OUT/NAME.
start_code_server() {
  local name="$1" dir="$OUT/$1"
  mkdir -p "$dir/data/User" "$dir/exts" "$dir/xdg-config" "$dir/xdg-data" "$dir/index"
  cp -r "$HERE/test/fixture-ws" "$dir/ws"
  SETTINGS="$dir/data/User/settings.json"
  node -e '
    const [file, python] = process.argv.slice(1);
    require("fs").writeFileSync(file, JSON.stringify({
      "groundls.interpreter": python,
      "groundls.logLevel": "debug",
      "groundls.answer.timeLimitS": 45,
      "workbench.colorTheme": "Default Dark Modern",
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "chat.commandCenter.enabled": false,
      "extensions.ignoreRecommendations": true,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "security.workspace.trust.enabled": false,
      "editor.minimap.enabled": false,
      "files.autoSave": "off",
      "git.openRepositoryInParentFolders": "never"
    }, null, 2));' "$SETTINGS" "$GROUNDLS_PYTHON"
  if [ "${2:-}" = "--install-vsix" ]; then
    XDG_CONFIG_HOME="$dir/xdg-config" XDG_DATA_HOME="$dir/xdg-data" "$CS" \
      --user-data-dir "$dir/data" --extensions-dir "$dir/exts" \
      --install-extension "$HERE/groundls.vsix" >"$dir/install.log" 2>&1 \
      || { cat "$dir/install.log"; die "installing the .vsix into code-server failed"; }
    grep -i "successfully installed" "$dir/install.log" || true
  fi
  PORT="$(free_port)"
  WS="$dir/ws"
  XDG_CONFIG_HOME="$dir/xdg-config" XDG_DATA_HOME="$dir/xdg-data" GROUNDLS_INDEX_DIR="$dir/index" \
    GROUNDLS_E2E_RESULTS="$dir/results.json" setsid "$CS" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry \
    --disable-update-check --disable-workspace-trust --disable-getting-started-override \
    --user-data-dir "$dir/data" --extensions-dir "$dir/exts" "$WS" \
    >"$dir/code-server.log" 2>&1 &
  CS_PID=$!
  for _ in $(seq 120); do
    curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
    kill -0 "$CS_PID" 2>/dev/null || { cat "$dir/code-server.log"; die "code-server exited"; }
    sleep 0.5
  done
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || die "code-server did not come up"
  echo "code-server on 127.0.0.1:$PORT (pid $CS_PID), workspace $WS"
}

# show_logs NAME: the extension's server log and code-server's log, for failures.
show_logs() {
  local dir="$OUT/$1"
  echo "--- groundls output channel ($1)"
  find "$dir/data/logs" -name '*groundls*.log' -exec tail -n 60 {} \; 2>/dev/null || true
  echo "--- code-server log ($1)"
  tail -n 40 "$dir/code-server.log" || true
}

status=0
for tier in $TIERS; do
  case "$tier" in
    exthost)
      step "tier (a): mocha suite in the extension host"
      start_code_server exthost
      t=$(date +%s)
      if CS_PORT="$PORT" EXT_DIR="$OUT/vsix/extension" WORKSPACE_DIR="$WS" \
        GROUNDLS_E2E_RESULTS="$OUT/exthost/results.json" node out/test/e2e/runExthost.js; then
        echo "tier (a) passed in $(($(date +%s) - t))s"
      else
        status=1
        show_logs exthost
        echo "tier (a) FAILED"
      fi
      cleanup
      ;;
    ui)
      step "tier (b): Chromium UI test of the installed .vsix"
      start_code_server ui --install-vsix
      t=$(date +%s)
      if CS_PORT="$PORT" WORKSPACE_DIR="$WS" SCREENSHOT="$SCREENSHOT" \
        LIGHT_SCREENSHOT="$OUT/ui/answer-panel-light.png" \
        HOVER_SCREENSHOT="$OUT/ui/hover-related.png" \
        node out/test/e2e/uiAsk.js; then
        echo "tier (b) passed in $(($(date +%s) - t))s"
      else
        status=1
        show_logs ui
        echo "tier (b) FAILED"
      fi
      cleanup
      step "tier (b): Chromium UI test of the editor's own surfaces (symbols, references, lenses, code actions)"
      start_code_server surfaces --install-vsix
      t=$(date +%s)
      if CS_PORT="$PORT" WORKSPACE_DIR="$WS" SHOTS_DIR="$SHOTS" node out/test/e2e/uiSurfaces.js; then
        echo "tier (b) surfaces passed in $(($(date +%s) - t))s, screenshots in $SHOTS"
      else
        status=1
        show_logs surfaces
        echo "tier (b) surfaces FAILED (screenshots in $SHOTS)"
      fi
      cleanup
      ;;
    *) die "unknown tier '$tier' (use exthost and/or ui)" ;;
  esac
done

step "done: $([ $status = 0 ] && echo PASSED || echo FAILED) in $(($(date +%s) - T0))s"
exit $status
