// runtime_registry: to be written
