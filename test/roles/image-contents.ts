/**
 * What each image the compose files run is known to contain, read from the files it is built from: a health check
 * or an entrypoint may only call what is here (test/roles/compose.test.ts). An image or a program missing from
 * this table fails the spec until its source is read and the table says so.
 */

export interface ImageContents {
  /** What /bin/sh is: a `CMD-SHELL` health check runs its script with it. */
  sh: 'dash' | 'busybox';
  /** Programs on its PATH (the shells' builtins aside). */
  has: readonly string[];
  /** Programs it is known not to have (a check that calls one never passes). */
  lacks: readonly string[];
  /** The files that show it. */
  source: string;
}

/**
 * What every Debian and Ubuntu image has, slim ones included: the Essential packages (bash; dash, which is
 * /bin/sh; coreutils; grep; sed), which no image here removes.
 */
const DEBIAN_ESSENTIAL = ['sh', 'bash', 'cat', 'head', 'base64', 'chown', 'chmod', 'grep', 'sed'];

export const IMAGES: Record<string, ImageContents> = {
  'typesense/typesense:27.1': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL],
    lacks: ['curl', 'wget', 'nc'],
    source:
      'typesense/typesense docker/deployment.Dockerfile (tag v27.1): FROM ubuntu:22.04, installs ca-certificates and ' +
      'copies typesense-server, nothing else; no curl (typesense/typesense#441, #1097 and #2731 ask for it)',
  },
  'eventstore/eventstore:24.10': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL, 'curl'],
    lacks: ['wget'],
    source:
      'EventStore/EventStore Dockerfile (tags v24.10.0–v24.10.4), stage runtime: FROM dotnet/runtime-deps:8.0-jammy, ' +
      '`apt install -y curl` for its own HEALTHCHECK on /health/live',
  },
  'mongo:7': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL, 'mongosh', 'docker-entrypoint.sh'],
    lacks: ['curl', 'wget'],
    source:
      'docker-library/mongo 7.0/Dockerfile: FROM ubuntu:jammy, installs mongodb-org-shell (mongosh: "ensure that if ' +
      'running as custom user that mongosh has a valid HOME"); wget only for the build, purged with apt-mark auto',
  },
  'redis:7': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL, 'redis-cli', 'docker-entrypoint.sh'],
    lacks: ['curl', 'wget'],
    source:
      'docker-library/redis 7.x/debian/Dockerfile: FROM debian:bookworm-slim, builds redis and checks `redis-cli ' +
      '--version`; wget and the compilers purged after the build',
  },
  'postgres:16': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL, 'pg_isready', 'psql', 'docker-entrypoint.sh'],
    lacks: ['curl', 'wget'],
    source:
      'docker-library/postgres 16/bookworm/Dockerfile: FROM debian:bookworm-slim, installs postgresql-16 with ' +
      '`ENV PATH $PATH:/usr/lib/postgresql/$PG_MAJOR/bin` (pg_isready, psql)',
  },
  'curlimages/curl:8.11.1': {
    sh: 'busybox',
    has: ['sh', 'curl'],
    lacks: ['bash'],
    source: 'curl/curl-container Makefile (base=docker.io/alpine) and create_appliance_image.sh: Alpine, busybox sh, curl',
  },
  // The base of the service's own image (Dockerfile, runtime stage); what that stage installs is added to it.
  'node:20-bookworm-slim': {
    sh: 'dash',
    has: [...DEBIAN_ESSENTIAL, 'node', 'npm'],
    lacks: ['curl', 'wget'],
    source:
      'nodejs/docker-node 20/bookworm-slim/Dockerfile (before "Drop Node.js v20", f97aaf33): FROM debian:bookworm-slim; ' +
      'curl and wget fetch node, then `apt-mark auto` and `apt-get purge --auto-remove` remove them',
  },
};

/** Commands both dash and busybox sh (and bash) run themselves. */
export const SHELL_BUILTINS = new Set([
  'exec',
  'printf',
  'echo',
  'exit',
  'test',
  '[',
  'true',
  'false',
  ':',
  'read',
  'cd',
  '{',
  '}',
  '!',
  'if',
  'then',
  'else',
  'fi',
]);

/** What only bash understands: dash and busybox sh fail on it (dash has no /dev/tcp, no process substitution). */
export const BASH_ONLY: Array<[RegExp, string]> = [
  [/\/dev\/(tcp|udp)\//, '/dev/tcp'],
  [/[<>]\(/, 'process substitution <(…)'],
  [/\[\[/, '[[ … ]]'],
  [/<<</, 'here-string <<<'],
  [/&>/, '&> redirection'],
  [/\$'/, "$'…' quoting"],
];

/**
 * The programs a shell script calls: the first word of each command (after `&&`, `||`, `|`, `;`, `{`, `$(` and
 * `<(`), past variable assignments and `exec`; quoted text is not looked into.
 */
export function programsOf(script: string): string[] {
  const unquoted = script.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, 'Q');
  const programs = new Set<string>();
  for (const command of unquoted.split(/&&|\|\||[|;\n]|\$\(|[<>]\(|\)/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    while (i < words.length && (/^\w+=/.test(words[i]) || words[i] === '{' || words[i] === '!')) i++;
    // `exec` with only redirections opens descriptors; with a command it runs it.
    if (words[i] === 'exec') i = words.findIndex((w, j) => j > i && !/^\d*[<>]/.test(w));
    if (i >= 0 && i < words.length && !/^\d*[<>]/.test(words[i])) programs.add(words[i]);
  }
  return [...programs].filter((p) => !SHELL_BUILTINS.has(p));
}

/** The runtime stage of a Dockerfile (after its last FROM): its base image and the packages it installs. */
export function runtimeStage(dockerfile: string): { base: string; installs: string[]; text: string } {
  const text = dockerfile.slice(dockerfile.lastIndexOf('\nFROM ') + 1).replace(/\\\n/g, ' ');
  const base = /^FROM\s+(\S+)/.exec(text)![1];
  const installs = [...text.matchAll(/(?:apt-get|apt|apk) (?:install|add)\s+([^&\n]*)/g)].flatMap((m) =>
    m[1].split(/\s+/).filter((w) => w && !w.startsWith('-') && w !== '\\'),
  );
  return { base, installs, text };
}
