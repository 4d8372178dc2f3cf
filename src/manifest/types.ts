import type { ActionCreate, ExternalEventCreate, InstanceCreate, PluginCreate } from '#contract';

/** An action or external event of a manifest: the create body, with title and description defaulted. */
export type ManifestAction = ActionCreate & { title: string; description: string };
export type ManifestExternalEvent = ExternalEventCreate & { title: string; description: string };

/** An install of a manifest: the instance's name, the one entity it goes on, and the install body's options. */
export type ManifestInstall = {
  name: string;
  repository?: string;
  agent?: string;
  app?: string;
} & Partial<Pick<InstanceCreate, 'events' | 'scopes' | 'inputs' | 'eventDispatchMode'>>;

/** A loaded, validated manifest (plugsmith.json). */
export interface Manifest {
  /** Absolute path of the file it came from. */
  path: string;
  /** The plugin section, after defaults and `$ref` files are resolved. */
  plugin: Required<Omit<PluginCreate, 'webhookUrl'>> & { webhookUrl?: string };
  actions: ManifestAction[];
  externalEvents: ManifestExternalEvent[];
  installs: ManifestInstall[];
  /** How `dev` starts the plugin (undefined: `npm run dev`): a shell command line, and the kinds of file (`*.py`) that restart it. */
  dev?: { command: string; watch: string[] };
  /** Absolute paths of the schema files its `$ref`s read (so `dev` can watch them too). */
  schemaFiles: string[];
  /** The `${VAR}`s its values used (deploy names each one, so a borrowed manifest cannot hide what it sends). */
  expandedVariables: Array<{ field: string; variable: string; fromDefault: boolean }>;
}
