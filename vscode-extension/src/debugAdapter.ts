// Entry point of the debug adapter process (stdin/stdout DAP).
import { DebugSession } from '@vscode/debugadapter';
import { SlsdbgSession } from './slsdbgSession';

DebugSession.run(SlsdbgSession);
