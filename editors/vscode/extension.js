// The TissLang extension's client: it starts `tissc lsp` (the language
// server, book: guide/editors.md, over stdio) for `.tiss` files, and `tissvm dap` (the
// debug adapter, book: cookbook/debugging.md) for the `tiss` debugger. Highlighting comes
// from the TextMate grammar alone, so it works without either.
'use strict';

const path = require('path');
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

/** The `tissc` to start: the `tiss.server.path` setting, or `tissc` on PATH. */
function serverPath() {
  const configured = vscode.workspace.getConfiguration('tiss').get('server.path');
  return typeof configured === 'string' && configured.trim() !== '' ? configured.trim() : 'tissc';
}

/**
 * The `tissvm` to start as the debug adapter: `tiss.debugger.path`; else the
 * `tissvm` beside the `tissc` that `tiss.server.path` names, when that is a
 * path; else `tissvm` on PATH. One setting locates both programs of a
 * toolchain installed outside PATH.
 */
function debuggerPath() {
  const configured = vscode.workspace.getConfiguration('tiss').get('debugger.path');
  if (typeof configured === 'string' && configured.trim() !== '') {
    return configured.trim();
  }
  const server = serverPath();
  return server.includes(path.sep) ? path.join(path.dirname(server), 'tissvm') : 'tissvm';
}

/** Starts `tissvm dap` for each debugging session of type `tiss`. */
const adapterFactory = {
  createDebugAdapterDescriptor() {
    return new vscode.DebugAdapterExecutable(debuggerPath(), ['dap']);
  },
};

/** F5 on a plan without a launch.json debugs the plan in the editor. */
const configurationProvider = {
  resolveDebugConfiguration(folder, config) {
    if (!config.type && !config.request && !config.name) {
      const editor = vscode.window.activeTextEditor;
      if (editor && editor.document.languageId === 'tiss') {
        return {
          type: 'tiss',
          request: 'launch',
          name: 'Debug this plan',
          plan: editor.document.uri.fsPath,
          workdir: folder ? folder.uri.fsPath : path.dirname(editor.document.uri.fsPath),
          stopOnEntry: true,
        };
      }
    }
    if (config.request === 'launch' && !config.plan) {
      return vscode.window.showInformationMessage('TissLang: the launch configuration needs a "plan".').then(() => undefined);
    }
    return config;
  },
};

async function start() {
  const command = serverPath();
  client = new LanguageClient(
    'tiss',
    'TissLang language server',
    { command, args: ['lsp'], transport: TransportKind.stdio },
    { documentSelector: [{ scheme: 'file', language: 'tiss' }, { scheme: 'untitled', language: 'tiss' }] },
  );
  try {
    await client.start();
  } catch (error) {
    client = undefined;
    vscode.window.showErrorMessage(
      `TissLang: could not start \`${command} lsp\` (${error.message}). ` +
        'Install tissc, or set "tiss.server.path" to the tissc program.',
    );
  }
}

async function stop() {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory('tiss', adapterFactory),
    vscode.debug.registerDebugConfigurationProvider('tiss', configurationProvider),
    vscode.commands.registerCommand('tiss.restartServer', async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('tiss.server.path')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
