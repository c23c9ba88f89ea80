// usage: to be written
