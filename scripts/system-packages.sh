#!/usr/bin/env bash
# Install the Debian packages the tests drive from outside Node: Chromium (browser tests
# through playwright-core), Debian Python's xarray + netCDF4 in /usr/bin/python3 (the NetCDF download is opened by
# xarray), GDAL and zarr-python 2 (test/io/gdalReadsOutput.test.ts opens an output with
# each), GDAL's Python binding (test/services/exportTiff.test.ts reads a tiff's nodata
# through it), and PostgreSQL 15's server binaries (test/helpers/postgres.ts starts a
# throwaway one for the metadata tests; the Debian service it comes with is not used), and redis-server
# (test/helpers/redis.ts starts a throwaway one for the job queue tests; its Debian service is not used either). Idempotent; skips what is present. Needs root (or sudo) only when installing.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
/usr/bin/python3 -c "import xarray, netCDF4" >/dev/null 2>&1 || need+=(python3-xarray python3-netcdf4)
command -v gdalmdiminfo >/dev/null 2>&1 || need+=(gdal-bin)
/usr/bin/python3 -c "import zarr" >/dev/null 2>&1 || need+=(python3-zarr)
/usr/bin/python3 -c "from osgeo import gdal" >/dev/null 2>&1 || need+=(python3-gdal)
[ -x /usr/lib/postgresql/15/bin/postgres ] || need+=(postgresql-15)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
if [ "${#need[@]}" -eq 0 ]; then echo "system packages: present"; exit 0; fi
sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
echo "system packages: installing ${need[*]}"
if ! $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
