#!/bin/sh
# Install toolhost from a release: download the archive for this system,
# check it against the release's checksums.txt (and checksums.txt's
# minisign signature, when a public key is given), and put the binary in a
# directory on your PATH.
#
#   curl -fsSL https://github.com/toolhost/toolhost/releases/latest/download/install.sh | sh
#
# Settings (environment):
#   TOOLHOST_VERSION      a release tag (v1.2.3); default: the latest release
#   TOOLHOST_INSTALL_DIR  where the binary goes; default: $HOME/.local/bin
#   TOOLHOST_PUBKEY       the release key's minisign public key (published
#                         with the release notes; docs/install.md); when set, the signature must verify
#                         and minisign must be installed
#   TOOLHOST_BASE_URL     where the release's files are (a mirror, or a
#                         local dist/ served for a test)
#   TOOLHOST_OS, TOOLHOST_ARCH  override the detected system (linux,
#                         darwin, windows; amd64, arm64)
set -eu

say() { printf '%s\n' "install.sh: $*" >&2; }
die() { say "$*"; exit 1; }

version=${TOOLHOST_VERSION:-latest}
if [ -n "${TOOLHOST_BASE_URL:-}" ]; then
  base=${TOOLHOST_BASE_URL%/}
elif [ "$version" = latest ]; then
  base=https://github.com/toolhost/toolhost/releases/latest/download
else
  base=https://github.com/toolhost/toolhost/releases/download/$version
fi
dir=${TOOLHOST_INSTALL_DIR:-$HOME/.local/bin}

os=${TOOLHOST_OS:-$(uname -s)}
case $os in
  Linux | linux) os=linux ;;
  Darwin | darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows* | windows) os=windows ;;
  *) die "no release for the system $os; build from source: go install github.com/toolhost/toolhost/cmd/toolhost@latest" ;;
esac
arch=${TOOLHOST_ARCH:-$(uname -m)}
case $arch in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no release for the architecture $arch; build from source: go install github.com/toolhost/toolhost/cmd/toolhost@latest" ;;
esac
archive=toolhost_${os}_${arch}.tar.gz
binary=toolhost
if [ "$os" = windows ]; then
  archive=toolhost_${os}_${arch}.zip
  binary=toolhost.exe
fi

fetch() { # url file
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1" || die "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || die "could not download $1"
  else
    die "neither curl nor wget is installed; install one of them"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    die "neither sha256sum nor shasum is installed: cannot check the download"
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch "$base/checksums.txt" "$tmp/checksums.txt"
if [ -n "${TOOLHOST_PUBKEY:-}" ]; then
  command -v minisign >/dev/null 2>&1 ||
    die "TOOLHOST_PUBKEY is set but minisign is not installed: install minisign, or unset TOOLHOST_PUBKEY to check the checksum only"
  fetch "$base/checksums.txt.minisig" "$tmp/checksums.txt.minisig"
  minisign -Vq -m "$tmp/checksums.txt" -x "$tmp/checksums.txt.minisig" -P "$TOOLHOST_PUBKEY" >/dev/null 2>&1 ||
    die "the signature of checksums.txt does not verify with TOOLHOST_PUBKEY: the release was changed, or the key is not the release's; nothing installed"
  say "signature of checksums.txt verified"
elif command -v minisign >/dev/null 2>&1; then
  say "signature not checked: set TOOLHOST_PUBKEY to the release key (docs/install.md) to check it"
fi

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
[ -n "$want" ] || die "checksums.txt names no $archive: this release has no build for $os/$arch"
fetch "$base/$archive" "$tmp/$archive"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] ||
  die "checksum mismatch for $archive (got $got, want $want): the download is damaged or was changed; nothing installed"

mkdir -p "$tmp/x"
case $archive in
  *.zip) (cd "$tmp/x" && unzip -q "../$archive") || die "could not unpack $archive (is unzip installed?)" ;;
  *) tar -xzf "$tmp/$archive" -C "$tmp/x" || die "could not unpack $archive" ;;
esac
[ -f "$tmp/x/$binary" ] || die "$archive holds no $binary"
mkdir -p "$dir"
# The sandbox helper program (Linux archives) goes beside toolhost, first:
# toolhost confines bash's commands with it when it is of the same build.
for b in toolhost-sandbox "$binary"; do
  [ -f "$tmp/x/$b" ] || continue
  chmod 0755 "$tmp/x/$b"
  # Moved in place, so a running toolhost keeps its old file.
  mv -f "$tmp/x/$b" "$dir/$b.new" && mv -f "$dir/$b.new" "$dir/$b" ||
    die "could not write $dir/$b; set TOOLHOST_INSTALL_DIR to a directory you can write"
done
say "installed $dir/$binary ($("$dir/$binary" version 2>/dev/null || echo "$version"))"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) say "$dir is not on your PATH; add it: export PATH=\"\$PATH:$dir\"" ;;
esac
