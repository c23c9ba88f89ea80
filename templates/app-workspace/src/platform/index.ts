// The platform SDK of this app (docs/app-runtime.md): agents, app actions and live data, all
// through the page that frames the app. No dependencies; type-checked with the app.
export { useAgent, useAgentList, type AgentRunStatus, type UseAgent } from './agents.ts';
export { callIntegrationTool, needsIntegrationSetup, openIntegrationSetup, reportIntegrationToolFailure, useIntegrationTool, type UseIntegrationTool } from './integrations.ts';
export { DataRequestError, maxCollectionDocuments, mergePatch, useCollection, useDoc, type UseCollection, type UseDoc } from './data.ts';
export { insidePlatform, PlatformUnavailableError } from './bridge.ts';
export type { AgentInfo, AgentStatus, AgentUpdate, Doc, IntegrationToolResult, ReportFailureResponse } from './protocol.ts';
