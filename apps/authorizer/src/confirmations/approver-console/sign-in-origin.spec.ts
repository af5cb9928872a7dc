import { signInRefusal } from './sign-in-origin';

describe('a console sign-in request', () => {
  const json = { 'content-type': 'application/json', host: '127.0.0.1:3000' };

  it('is taken as JSON from the console page itself, or from a client that is no browser', () => {
    expect(signInRefusal({ ...json, origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' })).toBeNull();
    expect(signInRefusal({ ...json, 'content-type': 'application/json; charset=utf-8', origin: 'https://127.0.0.1:3000' })).toBeNull();
    expect(signInRefusal(json)).toBeNull();
  });

  it('is refused in any body a cross-site form can send', () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', undefined]) {
      expect(signInRefusal({ ...json, 'content-type': type })?.error).toBe('unsupported_media_type');
    }
  });

  it('is refused from another origin or site, even as JSON', () => {
    expect(signInRefusal({ ...json, origin: 'https://evil.example' })?.error).toBe('cross_site_request');
    expect(signInRefusal({ ...json, origin: 'null' })?.error).toBe('cross_site_request');
    expect(signInRefusal({ ...json, 'sec-fetch-site': 'cross-site' })?.error).toBe('cross_site_request');
    expect(signInRefusal({ ...json, 'sec-fetch-site': 'same-site' })?.error).toBe('cross_site_request');
    expect(signInRefusal({ 'content-type': 'application/json', origin: 'http://127.0.0.1:3000' })?.error).toBe('cross_site_request');
  });
});
