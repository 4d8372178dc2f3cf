import type { Static } from '@sinclair/typebox';
import type { TriggerStepSchema } from '../schema.js';
import type { StepModule } from '../context.js';

// The `trigger` step: any event is sent to the plugin, as `plugsmith trigger` sends it: through the
// platform, or with the step's payload set over the sample (the emulator's only: a remote run
// refuses it, target.ts). A conversation the event names is the one its replies come in.

export type TriggerStep = Static<typeof TriggerStepSchema>;

export const triggerStep: StepModule<'trigger'> = {
  label: (step) => `trigger ${step.event}${step.payload ? ' (payload)' : ''}`,
  run: async (step, context) => {
    const { triggerEvent } = await import('../../trigger/trigger.js');
    const triggered = await triggerEvent(context.client, {
      type: step.event,
      pluginId: context.pluginId,
      instanceId: step.instance,
      overrides: step.payload ? overridesOf(step.payload) : undefined,
      timeoutMs: context.within,
    });
    if (triggered.conversationId) context.scope.conversationId = triggered.conversationId;
    return {
      deliveryId: triggered.delivery?.id ?? null,
      eventId: triggered.delivery?.eventId ?? null,
      conversationId: triggered.conversationId ?? null,
    };
  },
};

/** A payload object as the `--set` overrides of `plugsmith trigger` (each leaf a path). */
function overridesOf(
  payload: Record<string, unknown>,
  prefix: string[] = [],
  out: Array<{ path: string[]; value: unknown }> = [],
): Array<{ path: string[]; value: unknown }> {
  for (const [key, value] of Object.entries(payload)) {
    if (isObject(value) && Object.keys(value).length) overridesOf(value, [...prefix, key], out);
    else out.push({ path: [...prefix, key], value });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
