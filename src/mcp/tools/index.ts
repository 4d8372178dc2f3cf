import type { McpTool } from '../tool.js';
import { cancelRetries } from './cancel_retries.js';
import { emulatorStatus } from './emulator_status.js';
import { followDeliveries } from './follow_deliveries.js';
import { followPluginOutput } from './follow_plugin_output.js';
import { getDelivery } from './get_delivery.js';
import { listCharacters } from './list_characters.js';
import { listDeliveries } from './list_deliveries.js';
import { recordScenario } from './record_scenario.js';
import { resendDelivery } from './resend_delivery.js';
import { resetEmulator } from './reset_emulator.js';
import { retryDelivery } from './retry_delivery.js';
import { rotateWebhookSecret } from './rotate_webhook_secret.js';
import { runCheck } from './run_check.js';
import { runScenarios } from './run_scenarios.js';
import { sendChatMessage } from './send_chat_message.js';
import { setFaultProfile } from './set_fault_profile.js';
import { triggerEvent } from './trigger_event.js';

/**
 * Every tool the server offers, in the order an agent reads them (`--read-only` keeps those annotated readOnlyHint).
 * A new tool is a file beside this one, added here.
 */
export const TOOLS: readonly McpTool[] = [
  emulatorStatus,
  listDeliveries,
  getDelivery,
  followDeliveries,
  followPluginOutput,
  listCharacters,
  triggerEvent,
  resendDelivery,
  retryDelivery,
  cancelRetries,
  runCheck,
  sendChatMessage,
  setFaultProfile,
  rotateWebhookSecret,
  resetEmulator,
  runScenarios,
  recordScenario,
];
