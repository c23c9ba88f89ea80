// agents_validation: to be written
