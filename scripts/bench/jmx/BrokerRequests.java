// Prints the broker's request counts by API (kafka.network RequestMetrics RequestsPerSec, summed
// over versions) and its bytes in and out and records in (bytesIn, bytesOut, messagesIn), one
// "<name>\t<count>" line each. The bench runs it at both ends of a window.
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

public class BrokerRequests {
  public static void main(String[] args) throws Exception {
    JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + args[0] + "/jmxrmi");
    try (JMXConnector jmx = JMXConnectorFactory.connect(url)) {
      MBeanServerConnection c = jmx.getMBeanServerConnection();
      Map<String, Long> counts = new TreeMap<>();
      for (ObjectName n : c.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,*"), null)) {
        counts.merge(n.getKeyProperty("request"), ((Number) c.getAttribute(n, "Count")).longValue(), Long::sum);
      }
      // All topics' bytes and records (the broker-wide meters carry no topic key), named apart
      // from the APIs by their lower-case initial.
      for (String meter : new String[] {"BytesInPerSec", "BytesOutPerSec", "MessagesInPerSec"}) {
        ObjectName n = new ObjectName("kafka.server:type=BrokerTopicMetrics,name=" + meter);
        if (c.isRegistered(n)) counts.put(Character.toLowerCase(meter.charAt(0)) + meter.substring(1, meter.length() - 6), ((Number) c.getAttribute(n, "Count")).longValue());
      }
      for (Map.Entry<String, Long> e : counts.entrySet()) System.out.println(e.getKey() + "\t" + e.getValue());
    }
  }
}
