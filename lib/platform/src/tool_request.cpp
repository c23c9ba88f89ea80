// tool_request: to be written
