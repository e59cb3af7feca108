const { contextBridge, ipcRenderer } = require('electron');

contextBridge.exposeInMainWorld('fixtureApi', {
  getSetting: (key) => ipcRenderer.invoke('settings:get', key),
  log: (line) => ipcRenderer.send('log:write', line),
  version: '1.2.3',
});
