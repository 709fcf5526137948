/** The dashboard webview, for tests and other extensions. */
import type { DashboardModel } from './dashboardModel';

export type { DashboardModel };

export interface DashboardApi {
  /** A dashboard panel exists (shown or in a background tab). */
  isOpen(): boolean;
  /** The panel is the visible tab of its group. */
  isVisible(): boolean;
  /** What the dashboard shows now (or would show when opened): from the history the extension keeps. */
  model(): DashboardModel;
  /** How many models the panel's webview has been sent (each update and each re-show is one). */
  readonly postedModels: number;
}
