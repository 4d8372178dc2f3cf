import type { CommandHandler } from '../types.js';
import { UserError, EXIT } from '../../errors.js';
import { completionModel } from './model.js';
import { bashScript, fishScript, zshScript } from './scripts.js';

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** Prints the completion script of a shell, made from the same registry as the commands. */
const completion: CommandHandler = async ({ args, io, program }) => {
  const shell = args[0] as keyof typeof SHELLS;
  const script = SHELLS[shell];
  if (!script) throw new UserError(`unknown shell "${args[0]}": use bash, zsh or fish`, EXIT.USAGE);
  io.stdout.write(script(completionModel(program)));
};

export default completion;
