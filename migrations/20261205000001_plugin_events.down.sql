DROP TABLE plugin_events;
