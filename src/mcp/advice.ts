// Advice in an agent's terms. The services MCP tools share with the CLI (the trigger, the delivery actions, the
// delivery watch, the scenario runner) name CLI commands in their messages ("`plugsmith logs dlv_1` shows it whole");
// an agent talking to `plugsmith mcp` has tools for those, so each command with a tool is said as that tool's call.
// Commands without a tool (`plugsmith dev`, which runs the emulator and the plugin; `plugsmith deploy`) stay as they are.

/** A CLI command (inside backticks) and the tool call that does the same, in the order they are tried. */
const TOOL_FOR: Array<[RegExp, (...groups: string[]) => string]> = [
  [/`plugsmith logs redeliver (dlv_\w+)`/g, (id) => `resend_delivery with deliveryId "${id}"`],
  [/`plugsmith logs redeliver[^`]*`/g, () => 'resend_delivery (one delivery at a time)'],
  [/`plugsmith logs retry (dlv_\w+)[^`]*`/g, (id) => `retry_delivery with deliveryId "${id}"`],
  [/`plugsmith logs cancel (dlv_\w+)[^`]*`/g, (id) => `cancel_retries with deliveryId "${id}"`],
  [/`plugsmith logs --follow[^`]*`/g, () => 'follow_deliveries'],
  [/`plugsmith logs (dlv_\w+)[^`]*`/g, (id) => `get_delivery with deliveryId "${id}"`],
  [
    /`plugsmith logs` lists the deliveries \(the id is the last column\)/g,
    () => 'list_deliveries lists the deliveries',
  ],
  [/`plugsmith logs[^`]*`/g, () => 'list_deliveries'],
  [
    /`plugsmith trigger ([A-Z_]+) --plugin (\S+?)`/g,
    (type, plugin) => `trigger_event with type "${type}" and pluginId "${plugin}"`,
  ],
  [/`plugsmith trigger ([A-Z_]+)[^`]*`/g, (type) => `trigger_event with type "${type}"`],
  [/`plugsmith trigger[^`]*`/g, () => 'trigger_event'],
  [
    /`plugsmith plugins verify (\S+?)`/g,
    (plugin) => `trigger_event with type "WEBHOOK_CHALLENGE" and pluginId "${plugin}"`,
  ],
  [/`plugsmith check[^`]*`/g, () => 'run_check'],
  [/`plugsmith scenario run[^`]*`/g, () => 'run_scenarios'],
  [/`plugsmith scenario record[^`]*`/g, () => 'record_scenario (with output to write a file)'],
  [/`plugsmith chat[^`]*`/g, () => 'send_chat_message'],
];

/** `text` with each CLI command that an MCP tool does named as that tool's call. */
export function inToolTerms(text: string): string {
  let out = text;
  // After the groups, replace() passes the offset and the whole text: only the groups are the tool's.
  for (const [command, tool] of TOOL_FOR)
    out = out.replace(command, (_match, ...rest: string[]) => tool(...rest.slice(0, -2)));
  return out;
}
