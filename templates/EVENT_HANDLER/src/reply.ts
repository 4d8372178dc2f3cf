/**
 * What the character says back to a user's message. Replace this with your own logic: call a
 * model, look something up, start a workflow… The plugin writes whatever it returns.
 */
export async function replyTo(text: string): Promise<string> {
  return `You said: ${text}`;
}
