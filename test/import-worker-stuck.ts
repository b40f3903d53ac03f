// A stand-in import worker for the tests of src/imports/imports.fork.ts: it takes the import and
// then spins for ever, never committing a batch (a reader stuck on a file).
process.once('message', () => {
  for (;;);
});
process.on('disconnect', () => process.exit(0));
