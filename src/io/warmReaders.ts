/**
 * Loading the raster readers ahead of the first open. open.ts imports them on first use, so a
 * process or thread that never opens a raster never pays for them; one that is about to open
 * rasters (a job thread kept ready for the next job, a server's request thread) can pay for
 * them while it waits instead. The HDF5 library is most of it: instantiating h5wasm took
 * ~0.12 s of a NetCDF-4 job's start on a fresh thread; the readers hold about 15 MB.
 */

/**
 * Import the readers open.ts chooses between and make the HDF5 library ready (with its guard).
 * Resolves once they are loaded; a reader that cannot load rejects here as it would at its
 * first open.
 * @example
 * await warmReaders(); // then the first openCube of a NetCDF-4 file skips the library's start
 */
export async function warmReaders(): Promise<void> {
  await Promise.all([
    import("./hdf5Guard.js").then(({ guardedH5wasm }) => guardedH5wasm()),
    import("./netcdf4.js"),
    import("./netcdf3.js"),
    import("./zarrRead.js"),
  ]);
}
