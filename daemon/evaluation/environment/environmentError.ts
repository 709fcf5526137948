/**
 * An example's environment could not be made: an install that failed (naming the package
 * when pip's or npm's output says which), a requirements file that cannot be read, no
 * interpreter to install for. Nothing is cached after it; fixing the file and running
 * again installs anew.
 */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';

  constructor(
    message: string,
    /** The package the installer could not find or install, when its output names one. */
    readonly packageName?: string,
  ) {
    super(message);
  }
}
