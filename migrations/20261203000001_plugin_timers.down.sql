DROP TABLE plugin_timers;
