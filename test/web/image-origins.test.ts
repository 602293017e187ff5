/**
 * The house's image origins (DEMO_WEB_IMAGE_ORIGINS): read as origins, a wrong one stops the start with its name, and
 * the front end's page allows images from them in its Content-Security-Policy and names them in its config.
 */
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { bidderWeb } from '../../examples/bidder-web/server.ts';

describe('the image origins of the front end', () => {
  it('reads DEMO_WEB_IMAGE_ORIGINS as origins (none when unset)', () => {
    expect(loadConfig({}).demoWebImageOrigins).to.deep.equal([]);
    const env = { DEMO_WEB_IMAGE_ORIGINS: 'https://images.example.com, https://cdn.example.com:8443/' };
    expect(loadConfig(env).demoWebImageOrigins).to.deep.equal(['https://images.example.com', 'https://cdn.example.com:8443']);
  });

  for (const value of [
    'images.example.com',
    'https://images.example.com/lots',
    'ftp://images.example.com',
    "https://x.example.com 'unsafe-inline'",
  ])
    it(`refuses ${JSON.stringify(value)}, naming the variable`, () => {
      expect(() => loadConfig({ DEMO_WEB_IMAGE_ORIGINS: value }))
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/^DEMO_WEB_IMAGE_ORIGINS: /);
    });

  it("allows images from them in the page's CSP and tells the page", async () => {
    const app = express().use(
      '/demo',
      bidderWeb({ tenant: 'demo', apiKey: () => 'key', apiUrl: null, imageOrigins: ['https://images.example.com'] }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/demo/`);
      expect(answer.headers.get('content-security-policy')).to.contain("img-src 'self' data: https://images.example.com;");
      const config = JSON.parse(/<script id="bidder-web-config" type="application\/json">([^<]*)<\/script>/.exec(await answer.text())![1]);
      expect(config.imageOrigins).to.deep.equal(['https://images.example.com']);
    } finally {
      server.close();
    }
  });
});
