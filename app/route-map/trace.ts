// What each operation's handler reaches, found in the sources with TypeScript's checker: from the handler, every
// declaration it names in the feature trees (commands/, queries/, projections/) is followed in turn; src/ and packages
// are not. What it finds is what a reader following the code would: the deciders, the events built, the collections.
import path from 'node:path';
import ts from 'typescript';

/** What one operation's handler reaches (its code: types are not followed). */
export interface Trace {
  operationId: string;
  /** Where `defineOperation` declares it, relative to the project's root. */
  file: string;
  /** The files of the feature trees its handler reaches, its own first. */
  files: string[];
  /** The deciders it runs (`…Decider`), with their files. */
  deciders: Array<{ name: string; file: string }>;
  /** Event types of the events it builds (an object literal with a `type` naming an event, and `data`). */
  events: string[];
  /** The string literals it reaches (collection names are found among them). */
  literals: Set<string>;
}

const TREES = /^(commands|queries|projections)\//;

/** Every `defineOperation` of the project's feature trees and src/, traced from its handler. */
export function traceOperations(root: string, eventTypes: ReadonlySet<string>): Map<string, Trace> {
  const program = createProgram(root);
  const checker = program.getTypeChecker();
  const traces = new Map<string, Trace>();
  for (const source of program.getSourceFiles()) {
    const file = path.relative(root, source.fileName);
    if (file.startsWith('..') || file.includes('node_modules') || !/^(commands|queries|src)\//.test(file)) continue;
    for (const { operationId, handler } of operationsIn(source)) {
      const trace: Trace = { operationId, file, files: [file], deciders: [], events: [], literals: new Set() };
      follow(handler, checker, root, eventTypes, trace);
      traces.set(operationId, trace);
    }
  }
  return traces;
}

function createProgram(root: string): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const roots = config.fileNames.filter((f) => /\/(commands|queries|src)\//.test(f) && !f.includes('/test/'));
  return ts.createProgram(roots, config.options);
}

/** The `defineOperation({ route: { operationId: '…' }, handler })` calls of a module. */
function operationsIn(source: ts.SourceFile): Array<{ operationId: string; handler: ts.Node }> {
  const found: Array<{ operationId: string; handler: ts.Node }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineOperation') {
      const [spec] = node.arguments;
      if (spec && ts.isObjectLiteralExpression(spec)) {
        const route = property(spec, 'route');
        const id = route && ts.isObjectLiteralExpression(route) ? property(route, 'operationId') : undefined;
        const handler = spec.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'handler');
        if (id && ts.isStringLiteralLike(id) && handler) found.push({ operationId: id.text, handler });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties)
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name) return p.initializer;
  return undefined;
}

/**
 * Walks the handler and every declaration of the feature trees it names, once each. A decider's
 * `switch (command.type)` is walked only in the cases of commands the operation builds (their type is among
 * the literals it reaches), so a route lists the events of its own commands, not of every command of its decider.
 */
function follow(start: ts.Node, checker: ts.TypeChecker, root: string, eventTypes: ReadonlySet<string>, trace: Trace): void {
  const seen = new Set<ts.Node>([start]);
  const queue: ts.Node[] = [start];
  const deferred = new Set<ts.CaseClause>();
  const events = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node)) return; // types build nothing: a command union's type names every command
    if (ts.isStringLiteralLike(node)) trace.literals.add(node.text);
    else if (ts.isObjectLiteralExpression(node)) {
      const type = property(node, 'type');
      if (type && ts.isStringLiteralLike(type) && eventTypes.has(type.text) && hasProperty(node, 'data')) events.add(type.text);
    } else if (ts.isSwitchStatement(node) && switchesOnCommand(node)) {
      for (const clause of node.caseBlock.clauses) if (ts.isCaseClause(clause)) deferred.add(clause);
      return;
    } else if (ts.isIdentifier(node)) {
      for (const declaration of declarationsOf(node, checker)) {
        const file = path.relative(root, declaration.getSourceFile().fileName);
        if (!TREES.test(file) || seen.has(declaration)) continue;
        seen.add(declaration);
        queue.push(declaration);
        if (!trace.files.includes(file)) trace.files.push(file);
        const name = ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.name.text : '';
        if (name.endsWith('Decider')) trace.deciders.push({ name, file });
      }
    }
    ts.forEachChild(node, visit);
  };
  for (;;) {
    for (let node = queue.shift(); node; node = queue.shift()) visit(node);
    const built = [...deferred].filter((c) => ts.isStringLiteralLike(c.expression) && trace.literals.has(c.expression.text));
    if (!built.length) break;
    for (const clause of built) {
      deferred.delete(clause);
      queue.push(...clause.statements);
    }
  }
  trace.events = [...events].sort();
}

/** `switch (command.type)`: a decider choosing by its command. */
const switchesOnCommand = (node: ts.SwitchStatement) =>
  ts.isPropertyAccessExpression(node.expression) &&
  node.expression.name.text === 'type' &&
  ts.isIdentifier(node.expression.expression) &&
  node.expression.expression.text === 'command';

const hasProperty = (object: ts.ObjectLiteralExpression, name: string) =>
  object.properties.some((p) => p.name && ts.isIdentifier(p.name) && p.name.text === name);

/** Where an identifier's symbol is declared, through imports and re-exports. */
function declarationsOf(identifier: ts.Identifier, checker: ts.TypeChecker): readonly ts.Declaration[] {
  let symbol = checker.getSymbolAtLocation(identifier);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations ?? [];
}
