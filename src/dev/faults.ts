import { UserError, EXIT } from '../errors.js';
import {
  checkFaultSeed,
  FAULT_PROFILE_SYNTAX,
  FaultProfileError,
  parseFaultProfile,
} from '../shared/fault-profile.js';

/** Checks `--faults` and `--faults-seed` before anything starts (a usage error shows the syntax); returns `startEmulator`'s options. */
export function faultOptions(
  faults: string | undefined,
  seed: string | undefined,
): { faults?: string; faultsSeed?: string } {
  if (faults === undefined) {
    if (seed !== undefined)
      throw new UserError(
        '--faults-seed needs --faults: pass a fault profile too, e.g. --faults duplicate=0.2 --faults-seed 42',
        EXIT.USAGE,
      );
    return {};
  }
  try {
    parseFaultProfile(faults);
  } catch (error) {
    if (!(error instanceof FaultProfileError)) throw error;
    throw new UserError(
      `invalid --faults: ${error.message}. The syntax: ${FAULT_PROFILE_SYNTAX}`,
      EXIT.USAGE,
    );
  }
  if (seed !== undefined) {
    try {
      checkFaultSeed(seed);
    } catch (error) {
      throw new UserError(
        `invalid --faults-seed ${JSON.stringify(seed)}: ${(error as Error).message.replace(/^"[^"]*": /, '')}`,
        EXIT.USAGE,
      );
    }
  }
  return { faults, faultsSeed: seed };
}
