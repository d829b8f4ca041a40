# Shared by scripts/run.sh and scripts/test.sh: dependency installation and
# the build. Sourced, not run.

TRIT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian 12 packages needed to build and run trit (docs/DEPENDENCIES.md says why each).
TRIT_BUILD_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libfmt-dev libcli11-dev nlohmann-json3-dev
  libpcre2-dev
  libhwy-dev
  libcurl4-openssl-dev
  libmicrohttpd-dev
)
# Added for the tests: GoogleTest, Google Benchmark, clang + libFuzzer, ccache, and
# Python for the cross-check against the independent `gguf` package;
# chromium and its driver for the chat page's browser tests.
TRIT_TEST_PACKAGES=(
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev ccache
  python3 python3-venv python3-pip
  gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 lld llvm
  nginx-light nodejs
  chromium chromium-driver
)

# Each step says how long the script has run, so a slow CI run shows where its time went.
log() { printf '\033[1m==> [%dm%02ds] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs the given Debian packages unless all are present already.
install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to install: ${missing[*]}"
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q || die "apt-get update failed"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
}

# configure BUILD_DIR [cmake args...]
configure() {
  local dir="$1"; shift
  log "configuring $dir"
  cmake -S "$TRIT_ROOT" -B "$dir" -G Ninja "$@" >/dev/null || die "cmake configure failed ($dir)"
}

# build BUILD_DIR [targets...]   (all targets when none are named)
build() {
  local dir="$1"; shift
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  log "building $dir${*:+ ($*)}"
  cmake --build "$dir" -j "$(nproc)" "${targets[@]}" || die "build failed ($dir)"
}
