/**
 * vscode-languageclient, bundled on its own as dist/lintClient.js and required only when the lint
 * client starts (after activation): it is a third of the extension's code, and activation should
 * not pay for loading it.
 */
export { DidChangeConfigurationNotification, LanguageClient, State, TransportKind } from 'vscode-languageclient/node';
