/**
 * The event kind `plugsmith check` sends to see that a webhook takes an unknown kind calmly: no platform sends it. A plugin
 * that keeps the shapes of what it receives (PLUGSMITH_EVENT_SHAPES) keeps this one too when it is checked; `parity check
 * --event-shapes` leaves it out, saying why, rather than naming it a kind the platform sends and the emulator does not.
 */
export const CHECK_PROBE_EVENT_TYPE = 'PLUGSMITH_CHECK_UNKNOWN_EVENT';
