go test fuzz v1
[]byte("const { ipcRenderer } = require('electron');\n\nfunction forward(channel, payload) {\n  // The channel is only known at run time.\n  ipcRenderer.send(channel, payload);\n}\n\nipcRenderer.on('theme:changed', (_event, theme) => {\n  document.body.className = theme;\n});\n\nforward('anything', 1);\n")
