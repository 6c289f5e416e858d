// The fracas extension: colours come from the TextMate grammar; everything else
// from the language server that `fracas lsp` starts (diagnostics, hover,
// definitions, references, completion, outline, example lenses, formatting).
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("fracas").get("server.command", ["fracas", "lsp"]);
  client = new LanguageClient(
    "fracas",
    "fracas",
    { command, args },
    { documentSelector: [{ language: "fracas" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
