'use strict';
const path = require('path');
const { app, BrowserWindow, ipcMain, utilityProcess } = require('electron');

function createWindow() {
  const win = new BrowserWindow({
    width: 800,
    height: 600,
    webPreferences: {
      preload: path.join(__dirname, 'preload.js'),
      contextIsolation: false,
      nodeIntegration: false,
      sandbox: true,
    },
  });
  win.loadFile(path.join(__dirname, 'index.html'));
  return win;
}

ipcMain.handle('settings:get', async (_event, key) => {
  return { key };
});

ipcMain.on('log:write', (_event, line) => {
  console.log(line);
});

// A listener no renderer ever sends to.
ipcMain.on('updates:check', () => {});

const worker = utilityProcess.fork(path.join(__dirname, 'worker.js'));

app.whenReady().then(() => {
  createWindow();
  worker.postMessage({ hello: true });
});
