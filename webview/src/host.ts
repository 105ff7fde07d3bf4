// The channel to the extension host: acquireVsCodeApi() inside VS Code; a console stub when the
// page is opened elsewhere (so nothing crashes outside a webview).
import type { WebviewMessage } from './protocol';

export interface HostApi {
  postMessage(msg: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare const acquireVsCodeApi: undefined | (() => {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
});

export function connectHost(): HostApi {
  if (typeof acquireVsCodeApi === 'function') {
    const api = acquireVsCodeApi();
    return {
      postMessage: (m) => api.postMessage(m),
      getState: () => api.getState(),
      setState: (s) => api.setState(s),
    };
  }
  let state: unknown;
  return {
    postMessage: (m) => console.info('[strata] (no VS Code host) postMessage', m),
    getState: () => state,
    setState: (s) => { state = s; },
  };
}
