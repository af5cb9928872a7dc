// End-to-end specs wait on real processes, brokers and databases; hooks included.
jest.setTimeout(180_000);
