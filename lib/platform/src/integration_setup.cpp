// integration_setup: to be written
