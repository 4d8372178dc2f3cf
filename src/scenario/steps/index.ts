import type { StepKind, StepOf } from '../schema.js';
import type { ResultFields, StepContext, StepModule } from '../context.js';
import { addFileStep } from './add-file.js';
import { conversationStep } from './conversation.js';
import { faultsStep } from './faults.js';
import { installStep } from './install.js';
import { messageStep } from './message.js';
import { removeFileStep } from './remove-file.js';
import { requestStep } from './request.js';
import { rotateSecretStep } from './rotate-secret.js';
import { triggerStep } from './trigger.js';
import { uninstallStep } from './uninstall.js';
import { waitStep } from './wait.js';

// Every step kind's module, by kind: the runner (run.ts) finds a step's module here. A kind of
// schema.ts without its module here does not compile.

const STEPS: { [K in StepKind]: StepModule<K> } = {
  conversation: conversationStep,
  message: messageStep,
  addFile: addFileStep,
  removeFile: removeFileStep,
  install: installStep,
  uninstall: uninstallStep,
  trigger: triggerStep,
  rotateSecret: rotateSecretStep,
  faults: faultsStep,
  request: requestStep,
  wait: waitStep,
};

/** Does a step with its kind's module. */
export function runStep<K extends StepKind>(
  step: StepOf<K>,
  context: StepContext,
): Promise<ResultFields> {
  const module: StepModule<K> = STEPS[step.kind];
  return module.run(step.body, context);
}

/** The step in words: `message "hi" `, `install on agent agent_nova`. */
export function stepLabel<K extends StepKind>(step: StepOf<K>): string {
  const module: StepModule<K> = STEPS[step.kind];
  return module.label(step.body);
}
