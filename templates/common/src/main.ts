import { configFromEnv, type PluginConfig } from './config.js';
import { startPlugin } from './plugin.js';

// `npm run dev` runs this file (with tsx), `npm start` its build (dist/main.js): read the
// environment, serve until stopped.
let config: PluginConfig;
try {
  config = configFromEnv();
} catch (error) {
  // A configuration mistake gets its message, not a stack trace.
  console.error((error as Error).message);
  process.exit(1);
}
const plugin = await startPlugin({ ...config, log: (line) => console.log(line) });
console.log(`{{name}} is listening at ${plugin.webhookUrl} (platform: ${config.platformUrl})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void plugin.close().then(() => process.exit(0));
  });
}
