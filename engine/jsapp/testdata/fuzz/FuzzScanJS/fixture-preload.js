go test fuzz v1
[]byte("const { contextBridge, ipcRenderer } = require('electron');\n\ncontextBridge.exposeInMainWorld('fixtureApi', {\n  getSetting: (key) => ipcRenderer.invoke('settings:get', key),\n  log: (line) => ipcRenderer.send('log:write', line),\n  version: '1.2.3',\n});\n")
