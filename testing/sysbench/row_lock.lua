-- sysbench script: each transaction locks one of --rows rows, works 2 ms holding the lock (the
-- client's own work, as an application between its SELECT ... FOR UPDATE and its UPDATE), then
-- updates it and commits. --rows=1 is a hot spot: every transaction queues on the one row lock.
-- sysbench row_lock.lua --rows=N prepare | run
ffi = require("ffi")
ffi.cdef[[int usleep(unsigned int usec);]]

sysbench.cmdline.options = {
   rows = {"rows in the table (1: a hot spot)", 10000},
   work_us = {"microseconds the client works holding the row lock", 2000},
}

function prepare()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS row_lock")
   con:query("CREATE TABLE row_lock (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB")
   for i = 1, sysbench.opt.rows do
      con:query(string.format("INSERT INTO row_lock VALUES (%d, 0)", i))
   end
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function thread_done()
   con:disconnect()
end

function event()
   local id = sysbench.rand.uniform(1, sysbench.opt.rows)
   con:query("BEGIN")
   con:query(string.format("SELECT n FROM row_lock WHERE id = %d FOR UPDATE", id))
   ffi.C.usleep(sysbench.opt.work_us)
   con:query(string.format("UPDATE row_lock SET n = n + 1 WHERE id = %d", id))
   con:query("COMMIT")
end
