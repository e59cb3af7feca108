process.parentPort.on('message', (e) => {
  process.parentPort.postMessage({ echo: e.data });
});
