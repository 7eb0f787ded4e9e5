// The TissLang extension's client: it starts `tissc lsp` (the language
// server of SPEC §9, over stdio) for `.tiss` files. Highlighting comes from
// the TextMate grammar alone, so it works without the server.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

/** The `tissc` to start: the `tiss.server.path` setting, or `tissc` on PATH. */
function serverPath() {
  const configured = vscode.workspace.getConfiguration('tiss').get('server.path');
  return typeof configured === 'string' && configured.trim() !== '' ? configured.trim() : 'tissc';
}

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
