// The start banner's lines about the demo data (app/main.ts): its secrets on the start that made them, and only
// where they are kept on every later start, so that a log collector or a shared terminal does not get them each time.
import type { DemoCredentials } from './demo.ts';

export function demoBannerLines(credentials: DemoCredentials, made: boolean, file: string, base: string): string[] {
  const tenants = '  Tenants: demo (en, sv, de; EUR), demo2 (en; SEK), demo-closed (public access off)';
  if (!made)
    return [
      `  Demo credentials: in ${file} (this user's alone; only the start that makes them prints them)`,
      tenants,
      `  Try: KEY=$(node -p "require('${file}').apiKey")`,
      `       curl -s -X POST ${base}/v1/tokens/anonymous -H "Api-Key: $KEY" -H 'Content-Type: application/json' -d '{"clientId":"demo"}'`,
    ];
  return [
    `  Demo credentials, made now and printed this once (kept in ${file}, this user's alone):`,
    `  Demo Api-Key:          ${credentials.apiKey}`,
    `  Demo member:           ${credentials.memberEmail} / ${credentials.memberPassword}`,
    `  Demo application:      ClientId ${credentials.clientId} / ClientSecret ${credentials.clientSecret}`,
    `  Demo back-office keys: demo ${credentials.backOfficeKeys.demo} / demo2 ${credentials.backOfficeKeys.demo2}`,
    tenants,
    `  Try: curl -s -X POST ${base}/v1/tokens/anonymous -H 'Api-Key: ${credentials.apiKey}' -H 'Content-Type: application/json' -d '{"clientId":"demo"}'`,
    `  Back office: curl -s '${base}/backoffice/v1/events?limit=5' -H 'Authorization: Bearer ${credentials.backOfficeKeys.demo}'`,
  ];
}
