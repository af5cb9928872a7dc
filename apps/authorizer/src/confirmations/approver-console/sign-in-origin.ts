import { HttpStatus } from '@nestjs/common';

export interface SignInRequestHeaders {
  'content-type'?: string;
  origin?: string;
  'sec-fetch-site'?: string;
  host?: string;
}

export interface SignInRefusal {
  status: HttpStatus;
  error: 'unsupported_media_type' | 'cross_site_request';
  message: string;
}

/**
 * Login CSRF (issue item: a cross-site form signed a browser into someone else's session): a
 * sign-in must be a JSON request from the console's own origin. A cross-site HTML form can send
 * only form-encoded, multipart or text/plain bodies, so requiring application/json shuts it out;
 * a browser's Origin and Sec-Fetch-Site say where a request came from, and anything but this
 * origin is refused. A client that sends neither (curl, a script) is no browser to be tricked.
 */
export function signInRefusal(headers: SignInRequestHeaders): SignInRefusal | null {
  const mediaType = (headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
  if (mediaType !== 'application/json') {
    return { status: HttpStatus.UNSUPPORTED_MEDIA_TYPE, error: 'unsupported_media_type', message: 'sign in with a JSON body: {"token": "<approver JWT>"}' };
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return crossSite();
  const origin = headers.origin;
  if (origin !== undefined && !sameHost(origin, headers.host)) return crossSite();
  return null;
}

const crossSite = (): SignInRefusal => ({ status: HttpStatus.FORBIDDEN, error: 'cross_site_request', message: 'sign in from the console page itself' });

/** The scheme is not compared: behind a TLS proxy the request reaches us as plain HTTP. */
function sameHost(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false; // "null" (a sandboxed frame, a file) or garbage
  }
}
