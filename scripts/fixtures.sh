#!/usr/bin/env bash
# Fetch the real NetCDF files the tests use from Debian's ferret-datasets and
# libncarg-data packages into test/fixtures/real (git-ignored). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=test/fixtures/real
want=(monthly_navy_winds.cdf coads_climatology.cdf ocean_atlas_subset.nc nc4uvt.nc atm_phy_mag0004_1985.nc hgt.nc)
have=0
for f in "${want[@]}"; do [ -f "$dest/$f" ] && have=$((have + 1)); done
if [ "$have" -eq "${#want[@]}" ]; then echo "fixtures: already in $dest"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download ferret-datasets libncarg-data >/dev/null 2>&1); then
  echo "fixtures: apt-get download failed; running apt-get update once and retrying" >&2
  if [ "$(id -u)" = 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
  (cd "$work" && apt-get download ferret-datasets libncarg-data >/dev/null)
fi
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/x"; done
mkdir -p "$dest"
for f in "${want[@]}"; do
  src=$(find "$work/x" -name "$f" -type f | head -n 1)
  [ -n "$src" ] || { echo "fixtures: $f not found in the packages" >&2; exit 1; }
  cp "$src" "$dest/$f"
done
echo "fixtures: ${#want[@]} files in $dest"
