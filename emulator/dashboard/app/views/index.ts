import type { ComponentType } from 'react';
import type { ViewProps } from '../view-props.js';
import { OverviewView } from './overview.js';
import { DeliveriesView } from './deliveries.js';
import { StoreDataView } from './data.js';
import { TriggerView } from './trigger.js';
import { ChatView } from './chat.js';
import { UploadsView } from './uploads.js';
import { InstallView } from './install.js';

/** One page of the dashboard, reached at `#/<path>`. */
export interface ViewDefinition {
  path: string;
  label: string;
  component: ComponentType<ViewProps>;
  /** The page fills the window below the header and scrolls inside its own boxes (Chat: its input stays in view). */
  fill?: boolean;
}

/** The dashboard's pages in navigation order; the first is the start page. */
export const VIEWS: ViewDefinition[] = [
  { path: 'overview', label: 'Overview', component: OverviewView },
  { path: 'deliveries', label: 'Deliveries', component: DeliveriesView },
  { path: 'data', label: 'Data', component: StoreDataView },
  { path: 'trigger', label: 'Trigger', component: TriggerView },
  { path: 'chat', label: 'Chat', component: ChatView, fill: true },
  { path: 'uploads', label: 'Uploads', component: UploadsView },
  { path: 'install', label: 'Verify & install', component: InstallView },
];
