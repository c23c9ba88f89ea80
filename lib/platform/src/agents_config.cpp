// agents_config: to be written
