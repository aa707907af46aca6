# Sourced by the fetch scripts of the sets built from a Debian package: the download, its
# checksum and its unpacking, written once.
#   deb_fetch DEST PACKAGE VERSION SHA256  exits at once when DEST already holds that package;
#                                          else unpacks it under "$deb_root" (removed on exit)
#   deb_done                               records DEST as fetched (after the caller's copy)

deb_fetch() {
  dest="$1" deb_package="$2" deb_version="$3" sha="$4"
  deb="${deb_package}_${deb_version}_all.deb"
  if [ -f "$dest.fetched" ] && [ "$(cat "$dest.fetched")" = "$deb $sha" ] && [ -d "$dest" ]; then
    echo "up to date: $dest"; exit 0
  fi
  deb_tmp="$(mktemp -d)"; trap 'rm -rf "$deb_tmp"' EXIT; chmod 755 "$deb_tmp"
  if ! (cd "$deb_tmp" && apt-get download -q "$deb_package=$deb_version" >&2 2>/dev/null); then
    apt-get update -qq >&2
    (cd "$deb_tmp" && apt-get download -q "$deb_package=$deb_version" >&2)
  fi
  echo "$sha  $deb_tmp/$deb" | sha256sum -c --quiet -
  dpkg-deb -x "$deb_tmp/$deb" "$deb_tmp/x"
  deb_root="$deb_tmp/x"
  rm -rf "$dest"; mkdir -p "$dest"
}

deb_done() {
  echo "$deb $sha" > "$dest.fetched"
  echo "fetched $deb_package $deb_version -> $dest ($(ls "$dest" | wc -l) files)"
}
