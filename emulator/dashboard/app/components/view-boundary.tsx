import { Component, type ReactNode } from 'react';
import { ErrorBox } from './error-box.js';

interface Props {
  /** What failed, for the message ("the Trigger view"). */
  name: string;
  children: ReactNode;
}

/**
 * Catches what a view throws while it renders (or in its effects) and shows it as a message, so no
 * stored data (a plugin's schema is any MEMBER's) can leave a blank page: the header and the other
 * views stay usable, and "Try again" renders the view afresh. (React logs the error to the console.)
 */
export class ViewBoundary extends Component<Props, { error: unknown }> {
  state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  render() {
    if (this.state.error === null) return this.props.children;
    return (
      <section aria-label={`${this.props.name} failed`}>
        <p>Something in {this.props.name} could not be shown.</p>
        <ErrorBox
          error={
            this.state.error instanceof Error
              ? this.state.error
              : new Error(String(this.state.error))
          }
        />
        <button type="button" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </section>
    );
  }
}
