const { ipcRenderer } = require('electron');

function forward(channel, payload) {
  // The channel is only known at run time.
  ipcRenderer.send(channel, payload);
}

ipcRenderer.on('theme:changed', (_event, theme) => {
  document.body.className = theme;
});

forward('anything', 1);
