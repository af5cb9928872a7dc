import { BadRequestException, HttpStatus, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { ApiError, errorCodeOf, publicErrorBody } from './http-errors';

describe('an HTTP error body', () => {
  it('keeps what our own code said: the code, the reason code and the message', () => {
    expect(publicErrorBody(new ApiError(HttpStatus.FORBIDDEN, 'own_request', { message: 'the requester cannot approve', reasonCode: 'x' }))).toEqual({
      statusCode: 403,
      error: 'own_request',
      message: 'the requester cannot approve',
      reasonCode: 'x',
    });
  });

  it("drops a library's message (JSON parser, router, throttler) and keeps the status", () => {
    expect(publicErrorBody(new BadRequestException('Unexpected token } in JSON at position 9'))).toEqual({ statusCode: 400, error: 'bad_request' });
    expect(publicErrorBody(new NotFoundException('Cannot GET /x'))).toEqual({ statusCode: 404, error: 'not_found' });
    expect(publicErrorBody(new PayloadTooLargeException('request entity too large'))).toEqual({ statusCode: 413, error: 'payload_too_large' });
    expect(publicErrorBody(new ThrottlerException())).toEqual({ statusCode: 429, error: 'too_many_requests' });
  });

  it('answers anything else 500 with no message and no stack', () => {
    expect(publicErrorBody(new Error('connect ECONNREFUSED 10.0.0.5:5432'))).toEqual({ statusCode: 500, error: 'internal_error' });
    expect(publicErrorBody('thrown string')).toEqual({ statusCode: 500, error: 'internal_error' });
    expect(errorCodeOf(599)).toBe('internal_error');
  });
});
