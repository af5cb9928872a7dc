import { lastFatalLine } from './processes';

describe('lastFatalLine', () => {
  it('takes the message of the last fatal or error log line', () => {
    const lines = [
      '{"level":30,"msg":"ready"}',
      '{"level":60,"time":"t","msg":"consumer cannot make progress, exiting: The coordinator is not aware of this member"}',
      '{"level":30,"msg":"bye"}',
    ];
    expect(lastFatalLine(lines)).toBe('consumer cannot make progress, exiting: The coordinator is not aware of this member');
  });

  it('adds the error field of a structured line to its msg', () => {
    const lines = ['{"level":60,"time":"t","msg":"consumer cannot make progress, exiting","error":"The coordinator is not aware of this member","context":"Consumer"}'];
    expect(lastFatalLine(lines)).toBe('consumer cannot make progress, exiting: The coordinator is not aware of this member');
  });

  it('takes an uncaught error line when there is no log line', () => {
    expect(lastFatalLine(['node:events:502', '      throw er; // Unhandled', 'Error: read ECONNRESET', '    at TCP.onStreamRead'])).toBe('Error: read ECONNRESET');
  });

  it('names the emitter of an unhandled error event', () => {
    const lines = ['node:events:502', "error: terminating connection due to administrator command", '    at parseErrorMessage (x)', "Emitted 'error' event on ToolDatabase instance at:", '    at y'];
    expect(lastFatalLine(lines)).toBe("error: terminating connection due to administrator command (Emitted 'error' event on ToolDatabase instance)");
  });

  it('has nothing to say about a clean log', () => {
    expect(lastFatalLine(['{"level":30,"msg":"ready"}'])).toBeUndefined();
  });
});
