import type { CommandHandler } from '../types.js';
import { UserError, EXIT } from '../../errors.js';
import type { ScenarioRecordFlags } from './options.js';

/** `plugsmith scenario record -o FILE` */
const record: CommandHandler<ScenarioRecordFlags> = async () => {
  throw new UserError('scenario record is not built yet', EXIT.UNEXPECTED);
};

export default record;
