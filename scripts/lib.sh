# Shared by the machine-setup scripts (sourced, not run). The sourcing script sets `tag` first.

log() { echo "[$tag] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# apt_install PKG...: install Debian/Ubuntu packages (root only), or stop with the command to run.
apt_install() {
  [ "$(id -u)" -eq 0 ] || die "missing packages: $*; run as root (or: sudo apt-get install $*)"
  command -v apt-get >/dev/null 2>&1 || die "missing packages: $*; no apt-get here, install them with your package manager"
  log "installing $* (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed"
  apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
  hash -r
}
