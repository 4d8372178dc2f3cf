import type { PluginOutputLine } from '#contract/plugin-output';
import type { Delivery, Message, PlatformClient, Plugin, PluginInstance } from '../client/index.js';
import type { StepBody, StepKind } from './schema.js';

// What the runner (run.ts) hands to the module of a step kind (steps/) and of an expectation kind
// (expectations/): the platform, the plugin under test, what earlier steps made, and the step's own
// scope. A module reads and writes only these; the loop in run.ts owns them.

/** What every step and expectation of one run shares. */
export interface RunContext {
  client: PlatformClient;
  pluginId: string;
  /** The plugin as the platform had it when the run began (its events, scopes and org). */
  plugin: Plugin;
  /** A remote platform: public APIs only, nothing sent to `/_emulator`. */
  remote: boolean;
  /** How long an expectation without `withinMs` waits, in milliseconds. */
  within: number;
  /** The files the scenario's own addFile steps added: not the plugin's writing. */
  ownFiles: Set<string>;
  /** The instances the scenario's install steps made: what uninstall and file checks know of them without the admin API. */
  installed: Map<string, { entityType: PluginInstance['entityType']; entityId: string }>;
  /** Deliveries (and attempt numbers) whose retry was made at once: one retry per refused attempt. */
  hurried: Set<string>;
  /** The project folder: every file a scenario names lies inside it. */
  projectRoot: string;
  /** The scenario file, when the scenario came from one: relative paths start from its folder. */
  scenarioFile?: string;
  /** Ends the run at once (SIGINT, SIGTERM): every wait of a step is left. */
  signal?: AbortSignal;
  /** Waits `ms`, or less when the run is aborted (then throws): a step left by an abort must not keep the process alive. */
  pause(ms: number): Promise<void>;
}

/** What a step leaves for its expectations to check. */
export interface StepScope {
  /** When the step began (ISO), a millisecond early: the deliveries since then are the step's. */
  startedAt: string;
  /** The conversation the step's replies come in. */
  conversationId?: string;
  /** The user message the replies answer (after it). */
  messageId?: string;
  /** On a remote platform: each repository's files (id -> updatedAt) before the step, which file checks compare with. */
  filesBefore?: Map<string, Map<string, string>>;
}

/** What a step's module gets: the run's context and the step's scope, which it fills (the conversation, the message). */
export interface StepContext extends RunContext {
  scope: StepScope;
}

/** A step's result: the fields later steps name as `${id.field}`. */
export type ResultFields = Record<string, unknown>;

/** What the module of a step kind (steps/<kind>.ts) gives the runner: the step in words, and doing it. */
export interface StepModule<K extends StepKind> {
  /** The step in words, as reports show it: `message "hi"`. */
  label(step: StepBody<K>): string;
  /** Does the step (its references expanded) through the platform's APIs; returns its result. */
  run(step: StepBody<K>, context: StepContext): Promise<ResultFields>;
}

/** What a step's expectations read, and how they wait for it to change (expectations/watch.ts makes one per step). */
export interface StepWatch {
  /** The plugin's deliveries since the step began (no webhook challenge), oldest first; none on a remote platform. */
  deliveries(): Promise<Delivery[]>;
  /** The complete replies in the step's conversation after the step's message, oldest first. */
  replies(): Promise<Message[]>;
  /**
   * Resolves once what this watch reads may have changed since the last call (an attempt logged, a reply ended), or at
   * `until` (a `Date.now()` time) at the latest. Rejects when the run is aborted.
   */
  changed(until: number): Promise<void>;
  /** The step's deliveries once a check saw every one answered: later checks and the report read these. */
  settled?: Delivery[];
  /** Ends the watch's streams. */
  close(): void;
}

/** What an expectation saw when it failed: the expectation, what was expected, what came, and the delivery to look at. */
export interface ExpectationFailure {
  /** The expectation as written, e.g. `reply {"text":"You said: hi"}`. */
  expectation: string;
  expected: string;
  observed: string;
  deliveryId?: string;
  /** The delivery in the emulator's web dashboard (log in first with `plugsmith emulator dashboard`). */
  link?: string;
  /** What the plugin wrote while handling that delivery (its attempts' linked output, oldest first): untrusted text. */
  pluginOutput?: PluginOutputLine[];
}

/** What an expectation's module gets: the step's scope and watch, its own deadline, and how to tell its failure. */
export interface ExpectationContext extends RunContext {
  scope: StepScope;
  watch: StepWatch;
  /** How long it waits, in milliseconds: its `withinMs`, else the run's default. */
  withinMs: number;
  /** When it stops waiting (a `Date.now()` time): then it reports what it expected and what it saw. */
  deadline: number;
  /** Its failure: what was expected, what came, and the delivery to look at (linked in the dashboard where there is one). */
  failure(expected: string, observed: string, delivery?: Delivery): ExpectationFailure;
}
