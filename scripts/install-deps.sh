#!/usr/bin/env bash
# Installs Ramus' build and test dependencies from Debian 12 packages (run as root).
# Does nothing when every package is already installed.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git
  zlib1g-dev libeigen3-dev libspectra-dev libarpack2-dev libhdf5-dev hdf5-tools libtet1.5-dev
  libsodium-dev
  libopenblas0-pthread catch2 libsuitesparse-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev libtbb-dev
  libopenvdb-dev libassimp-dev libopenmpi-dev openmpi-bin
  python3-matplotlib python3-dev python3-numpy python3-pytest pybind11-dev
  libglfw3-dev libimgui-dev libstb-dev libopengl-dev libgl-dev libgl1-mesa-dri xvfb xauth
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
