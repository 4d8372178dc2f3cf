import { conflict, found } from '../errors.js';
import { nowIso } from '../store/ids.js';
import type { AgentRecord } from '../model.js';
import type { StoreDeps } from '../context.js';

/** Creates an agent; an id already taken is a 409 naming the fix. */
export async function createAgent(services: StoreDeps, agent: AgentRecord): Promise<AgentRecord> {
  if (services.db.agents.has(agent.id))
    throw conflict(
      `An agent with id ${agent.id} already exists; choose another id or PATCH /_emulator/agents/${agent.id}`,
    );
  await services.db.agents.put(agent);
  return agent;
}

/** Renames an agent, on its current record. */
export async function renameAgent(
  services: StoreDeps,
  agentId: string,
  name: string,
): Promise<AgentRecord> {
  const agent = found(services.db.agents.get(agentId), 'agent', agentId);
  const updated: AgentRecord = { ...agent, name, updatedAt: nowIso() };
  await services.db.agents.put(updated);
  return updated;
}
