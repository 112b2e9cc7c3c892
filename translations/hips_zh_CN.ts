<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>LiveChart</name>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="18"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="19"/>
        <source>Save this chart as a PNG picture, or its points as CSV</source>
        <translation>将此图表保存为 PNG 图片，或将其数据点保存为 CSV</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="25"/>
        <location filename="../ui/charts/ChartExport.cpp" line="31"/>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="26"/>
        <source>PNG pictures (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="27"/>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="33"/>
        <source>Save as PNG…</source>
        <translation>保存为 PNG…</translation>
    </message>
    <message>
        <location filename="../ui/charts/ChartExport.cpp" line="34"/>
        <source>Save points as CSV…</source>
        <translation>将数据点保存为 CSV…</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="143"/>
        <source>drop the host onto a party</source>
        <translation>请将主机拖放到参与方上</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="155"/>
        <source>drop the role onto a party</source>
        <translation>请将角色拖放到参与方上</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="161"/>
        <source>party &apos;%1&apos; already has a scheduler</source>
        <translation>参与方“%1”已有调度器</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="171"/>
        <source>the master worker belongs in the central party</source>
        <translation>主工作节点必须位于中心参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="172"/>
        <source>the central party already has a master worker</source>
        <translation>中心参与方已有主工作节点</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="179"/>
        <source>not a role</source>
        <translation>不是角色</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="196"/>
        <source>%1 servers per party: give 1 to %2</source>
        <translation>每个参与方 %1 个服务器：请给出 1 到 %2</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="199"/>
        <source>party &apos;%1&apos; has no server to add more beside; add one</source>
        <translation>参与方“%1”没有服务器，无法在其旁添加更多；请先添加一个</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="204"/>
        <source>no free port above %1 on host &apos;%2&apos;</source>
        <translation>主机“%2”上 %1 以上没有空闲端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="220"/>
        <source>no free port on host &apos;%1&apos;</source>
        <translation>主机“%1”上没有空闲端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="288"/>
        <source>no such party</source>
        <translation>参与方不存在</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="293"/>
        <source>no such worker group</source>
        <translation>工作节点组不存在</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="302"/>
        <source>no such server</source>
        <translation>服务器不存在</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="304"/>
        <source>every party has as many servers as there are global servers, one key slice each: move a server between the hosts of its party, and set how many with Servers per party</source>
        <translation>每个参与方的服务器数与全局服务器数相同，每台服务器负责一个键切片：服务器只能在所属参与方的主机之间移动，数量请用“每个参与方的服务器数”设置</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="314"/>
        <source>a party&apos;s scheduler, the master worker and the state service stay in their party; move them between hosts only</source>
        <translation>参与方的调度器、主工作节点和状态服务只能留在本参与方内；只能在主机之间移动</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="322"/>
        <source>only roles can be moved between parties and hosts</source>
        <translation>只有角色可以在参与方和主机之间移动</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="480"/>
        <source>a party id must be non-empty and without &apos;/&apos;</source>
        <translation>参与方 ID 不能为空，且不能包含“/”</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="482"/>
        <source>there is already a party &apos;%1&apos;</source>
        <translation>已存在参与方“%1”</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="445"/>
        <location filename="../backend/topology/TopologyEdits.cpp" line="484"/>
        <source>no party &apos;%1&apos;</source>
        <translation>参与方“%1”不存在</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="495"/>
        <source>a host id must not be empty</source>
        <translation>主机 ID 不能为空</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyEdits.cpp" line="497"/>
        <source>there is already a host &apos;%1&apos;</source>
        <translation>已存在主机“%1”</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerItems.cpp" line="103"/>
        <source>CENTRAL PARTY</source>
        <translation>中心参与方</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="31"/>
        <source>global scheduler</source>
        <translation>全局调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="31"/>
        <source>scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="36"/>
        <source>global server %1</source>
        <translation>全局服务器 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="37"/>
        <source>server %1 (unused)</source>
        <translation>服务器 %1（未使用）</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="38"/>
        <source>server %1</source>
        <translation>服务器 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="43"/>
        <source>state service</source>
        <translation>状态服务</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="44"/>
        <source>master worker</source>
        <translation>主工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="50"/>
        <source>workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="50"/>
        <source>workers · %1</source>
        <translation>工作节点 · %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="120"/>
        <source>Slurm job</source>
        <translation>Slurm 作业</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="133"/>
        <source>node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="155"/>
        <source>host &apos;%1&apos;?</source>
        <translation>主机“%1”？</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="112"/>
        <location filename="../ui/report/ReportHtml.cpp" line="110"/>
        <source>round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="112"/>
        <source>seconds since start</source>
        <translation>自开始以来的秒数</translation>
    </message>
    <message>
        <source>Test accuracy by round</source>
        <translation type="vanished">各轮次的测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="117"/>
        <location filename="../ui/report/ReportHtml.cpp" line="174"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>test accuracy</source>
        <translation type="vanished">测试准确率</translation>
    </message>
    <message>
        <source>Test accuracy over time</source>
        <translation type="vanished">测试准确率随时间变化</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="87"/>
        <source> (values not finite, left out: %1)</source>
        <translation>（非有限值已略去：%1 个）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="117"/>
        <location filename="../ui/report/ReportHtml.cpp" line="174"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="118"/>
        <location filename="../ui/report/ReportCharts.cpp" line="126"/>
        <source>test %1</source>
        <translation>测试 %1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="119"/>
        <source>top-5 accuracy</source>
        <translation>top-5 准确率</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="122"/>
        <source>%1 (own held-out data)</source>
        <translation>%1（自有留出数据）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="125"/>
        <source>Test %1 by round</source>
        <translation>各轮次的测试 %1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="126"/>
        <source>Test %1 over time</source>
        <translation>测试 %1 随时间变化</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="127"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="129"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="130"/>
        <source>training loss (mean of workers)</source>
        <translation>训练损失（各工作节点平均值）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="131"/>
        <source>test loss</source>
        <translation>测试损失</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="132"/>
        <source>Traffic per tier (cumulative)</source>
        <translation>各层级流量（累计）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="134"/>
        <source>MB sent</source>
        <translation>发送量（MB）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="135"/>
        <source>inside parties</source>
        <translation>参与方内部</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="135"/>
        <source>across parties</source>
        <translation>跨参与方</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="136"/>
        <source>Throughput (all workers)</source>
        <translation>吞吐量（所有工作节点）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="138"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="139"/>
        <source>samples per second</source>
        <translation>每秒样本数</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="140"/>
        <source>Computing-time ratio: compute / (compute + communication)</source>
        <translation>计算时间占比：计算 / (计算 + 通信)</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="142"/>
        <source>ratio</source>
        <translation>占比</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportCharts.cpp" line="143"/>
        <source>computing-time ratio</source>
        <translation>计算时间占比</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="64"/>
        <source>signal %1</source>
        <translation>信号 %1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="76"/>
        <source>&lt;p&gt;No processes were recorded for this run.&lt;/p&gt;</source>
        <translation>&lt;p&gt;本次运行没有记录任何进程。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="77"/>
        <source>party</source>
        <translation>参与方</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="77"/>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="77"/>
        <source>process</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>role</source>
        <translation type="vanished">角色</translation>
    </message>
    <message>
        <source>rank</source>
        <translation type="vanished">序号</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="77"/>
        <source>pid</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="78"/>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="78"/>
        <source>started at</source>
        <translation>启动时间</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="78"/>
        <source>ran for</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="78"/>
        <source>exit</source>
        <translation>退出码</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="79"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="108"/>
        <source>Attacks and robust aggregation</source>
        <translation>攻击与鲁棒聚合</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="110"/>
        <source>attackers</source>
        <translation>攻击者</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="110"/>
        <source>rejected by the rules</source>
        <translation>被规则拒绝</translation>
    </message>
    <message>
        <source>&lt;p&gt;None.&lt;/p&gt;</source>
        <translation type="vanished">&lt;p&gt;无。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="51"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="51"/>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="109"/>
        <source>&lt;p&gt;No attacks, and the rules rejected nothing.&lt;/p&gt;</source>
        <translation>&lt;p&gt;没有攻击，规则也未拒绝任何内容。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="111"/>
        <source>&lt;p&gt;%1 more rounds in the JSON export.&lt;/p&gt;</source>
        <translation>&lt;p&gt;另有 %1 轮见 JSON 导出。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="126"/>
        <source>at</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="126"/>
        <source>level</source>
        <translation>级别</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="126"/>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="126"/>
        <source>message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="127"/>
        <source>&lt;p&gt;%1 more in the JSON export.&lt;/p&gt;</source>
        <translation>&lt;p&gt;另有 %1 条，见 JSON 导出。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="146"/>
        <location filename="../ui/report/ReportWriter.cpp" line="90"/>
        <source>Run report: %1</source>
        <translation>运行报告：%1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="160"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="161"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="162"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="163"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="164"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="165"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="166"/>
        <source>Ended</source>
        <translation>结束时间</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="167"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="168"/>
        <source>%1 (and %2 paused before a resume)</source>
        <translation>%1（另有 %2 暂停于恢复之前）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="170"/>
        <source>Report made</source>
        <translation>报告生成时间</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="172"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="175"/>
        <source>not reached</source>
        <translation>未达到</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="176"/>
        <source>%1 (round %2)</source>
        <translation>%1（第 %2 轮）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="178"/>
        <source>Rounds</source>
        <translation>轮次数</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="179"/>
        <source>Best test %1</source>
        <translation>最佳测试 %1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="180"/>
        <source>Final test %1</source>
        <translation>最终测试 %1</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="181"/>
        <source>Final top-5 accuracy</source>
        <translation>最终 top-5 准确率</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="181"/>
        <location filename="../ui/report/ReportHtml.cpp" line="184"/>
        <source>- (a regression)</source>
        <translation>-（回归任务）</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="182"/>
        <source>- (fewer than 5 classes)</source>
        <translation>-（类别少于 5 个）</translation>
    </message>
    <message>
        <source>Best test accuracy</source>
        <translation type="vanished">最佳测试准确率</translation>
    </message>
    <message>
        <source>Final test accuracy</source>
        <translation type="vanished">最终测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="184"/>
        <source>Time to %1 accuracy</source>
        <translation>达到 %1 准确率的用时</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="185"/>
        <source>Bytes inside parties</source>
        <translation>参与方内部字节数</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="186"/>
        <source>Bytes across parties</source>
        <translation>跨参与方字节数</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="187"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="187"/>
        <source>%1 samples/s</source>
        <translation>%1 样本/秒</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="188"/>
        <source>Computing-time ratio</source>
        <translation>计算时间占比</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="191"/>
        <source>Privacy</source>
        <translation>隐私</translation>
    </message>
    <message>
        <source>none: updates leave as they are</source>
        <translation type="vanished">无：更新按原样发出</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="189"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="189"/>
        <source>%1, listed at the end</source>
        <translation>%1 条，列于文末</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="193"/>
        <source>Topology</source>
        <translation>拓扑</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="195"/>
        <source>&lt;p&gt;The stored topology could not be read.&lt;/p&gt;</source>
        <translation>&lt;p&gt;无法读取已保存的拓扑。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="197"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="202"/>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="205"/>
        <source>&lt;p&gt;%1: not recorded in this run.&lt;/p&gt;</source>
        <translation>&lt;p&gt;%1：本次运行未记录。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="210"/>
        <source>Processes</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportHtml.cpp" line="189"/>
        <location filename="../ui/report/ReportHtml.cpp" line="213"/>
        <source>Warnings and errors</source>
        <translation>警告与错误</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportWriter.cpp" line="95"/>
        <source>cannot write %1: the PDF came out empty</source>
        <translation>无法写入 %1：生成的 PDF 为空</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation type="vanished">无法写入 %1：%2</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportWriter.cpp" line="108"/>
        <source>cannot tell the report format from &apos;%1&apos;: end the file name with .%2</source>
        <translation>无法从“%1”判断报告格式：请让文件名以 .%2 结尾</translation>
    </message>
    <message>
        <location filename="../ui/report/ReportWriter.cpp" line="111"/>
        <source>cannot write %1: the folder %2 does not exist or is not writable</source>
        <translation>无法写入 %1：文件夹 %2 不存在或不可写</translation>
    </message>
    <message>
        <location filename="../ui/report/TopologyDiagram.cpp" line="60"/>
        <source>%1 (central party)</source>
        <translation>%1（中心参与方）</translation>
    </message>
    <message>
        <location filename="../ui/report/TopologyDiagram.cpp" line="61"/>
        <source>%1 (%2, no party server)</source>
        <translation>%1（%2，无参与方服务器）</translation>
    </message>
    <message>
        <location filename="../ui/report/TopologyDiagram.cpp" line="168"/>
        <source>aggregates up, model down</source>
        <translation>聚合结果上行，模型下行</translation>
    </message>
</context>
<context>
    <name>RunHistory</name>
    <message>
        <location filename="../backend/history/HistoryRecords.h" line="24"/>
        <source>its controller ended before the run did (killed, or the machine stopped)</source>
        <translation>其控制器在运行结束前退出（被终止，或机器停止）</translation>
    </message>
</context>
<context>
    <name>TopologyCheck</name>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="43"/>
        <source>a lone surrogate, not a character</source>
        <translation>孤立的代理项，不是字符</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="44"/>
        <source>a control character</source>
        <translation>控制字符</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="45"/>
        <source>a bidi control, which reorders how text is shown</source>
        <translation>双向控制字符，会改变文本的显示顺序</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="47"/>
        <source>&apos;/&apos;, which separates party and role in node ids</source>
        <translation>“/”，它在节点 ID 中分隔参与方与角色</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="49"/>
        <source>an invisible format character</source>
        <translation>不可见的格式字符</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="50"/>
        <source>not a printable character</source>
        <translation>不可打印字符</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="51"/>
        <source>not allowed here</source>
        <translation>此处不允许</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="68"/>
        <source>%1 %2 contains %3 at character %4; %5</source>
        <translation>%1 %2 在第 %4 个字符处包含%3；%5</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="73"/>
        <source>%1 %2 is %3 characters long; use at most %4</source>
        <translation>%1 %2 长 %3 个字符；最多 %4 个</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="108"/>
        <source>%1 %2 has an empty label (two dots, or a dot at either end); write the host name without them</source>
        <translation>%1 %2 含空标签（两个连续的点，或首尾有点）；请去掉它们</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="113"/>
        <source>%1 %2 has a label of %3 characters; a DNS label has at most %4</source>
        <translation>%1 %2 含 %3 个字符的标签；DNS 标签最多 %4 个字符</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="116"/>
        <source>%1 %2 has a label that starts or ends with &apos;-&apos;; a host name cannot</source>
        <translation>%1 %2 含以“-”开头或结尾的标签；主机名不允许这样</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="122"/>
        <source>%1 %2 is neither an IPv4 address (four numbers 0-255, no leading zeros) nor a host name (its last label is a number)</source>
        <translation>%1 %2 既不是 IPv4 地址（四个 0-255 的数，无前导零），也不是主机名（其最后一个标签是数字）</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="133"/>
        <source>%1 is empty; give it a name of letters, digits, &apos;_&apos;, &apos;-&apos; or &apos;.&apos;</source>
        <translation>%1 为空；请用字母、数字、“_”、“-”或“.”命名</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="138"/>
        <source>%1 %2 starts with %3; start it with a letter, a digit or &apos;_&apos;</source>
        <translation>%1 %2 以%3开头；请以字母、数字或“_”开头</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="140"/>
        <source>use only letters, digits, &apos;_&apos;, &apos;-&apos; and &apos;.&apos;</source>
        <translation>只使用字母、数字、“_”、“-”和“.”</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="148"/>
        <source>%1 is empty; give an IPv4 or IPv6 address or a host name</source>
        <translation>%1 为空；请给出 IPv4 或 IPv6 地址或主机名</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="155"/>
        <source>give an IPv4 or IPv6 address or a host name (letters A-Z, digits, &apos;-&apos; and &apos;.&apos;; international names in their xn-- form)</source>
        <translation>请给出 IPv4 或 IPv6 地址或主机名（字母 A-Z、数字、“-”和“.”；国际化域名使用 xn-- 形式）</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="162"/>
        <source>%1 %2 is not a valid IPv6 address; write it without brackets or port</source>
        <translation>%1 %2 不是有效的 IPv6 地址；请去掉方括号和端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="172"/>
        <location filename="../backend/topology/FieldRules.cpp" line="180"/>
        <source>remove it</source>
        <translation>请删除它</translation>
    </message>
    <message>
        <location filename="../backend/topology/FieldRules.cpp" line="182"/>
        <source>%1 %2 starts with &apos;-&apos;; a user name cannot</source>
        <translation>%1 %2 以“-”开头；用户名不允许这样</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="13"/>
        <source>a boolean</source>
        <translation>布尔值</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="14"/>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="15"/>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="16"/>
        <source>an array</source>
        <translation>数组</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="17"/>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="29"/>
        <source>missing; add a string value</source>
        <translation>缺失；请添加字符串值</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="33"/>
        <source>must be a non-empty string, found %1</source>
        <translation>必须是非空字符串，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="37"/>
        <source>is empty; give it a value</source>
        <translation>为空；请填写一个值</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="46"/>
        <source>missing; add an integer in [%1, %2]</source>
        <translation>缺失；请添加 [%1, %2] 内的整数</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="52"/>
        <source>must be an integer, found %1</source>
        <translation>必须是整数，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="56"/>
        <source>%1 is out of range; use an integer in [%2, %3]</source>
        <translation>%1 超出范围；请使用 [%2, %3] 内的整数</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="67"/>
        <source>must be a finite number, found %1</source>
        <translation>必须是有限数字，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="72"/>
        <source>%1 is out of range; use a number in [%2, %3]</source>
        <translation>%1 超出范围；请使用 [%2, %3] 内的数字</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="83"/>
        <source>must be true or false, found %1</source>
        <translation>必须为 true 或 false，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="92"/>
        <source>missing; add an object</source>
        <translation>缺失；请添加对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="96"/>
        <source>must be an object, found %1</source>
        <translation>必须是对象，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="105"/>
        <source>missing; add an array</source>
        <translation>缺失；请添加数组</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="109"/>
        <source>must be an array, found %1</source>
        <translation>必须是数组，实际为%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="118"/>
        <location filename="../backend/topology/JsonFields.cpp" line="135"/>
        <location filename="../backend/topology/RuleValidation.cpp" line="92"/>
        <location filename="../backend/topology/RuleValidation.cpp" line="122"/>
        <source>&apos;%1&apos; is not supported; use one of: %2</source>
        <translation>不支持“%1”；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/JsonFields.cpp" line="128"/>
        <source>unknown %1 &apos;%2&apos;; expected one of: %3</source>
        <translation>未知的%1“%2”；应为以下之一：%3</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="38"/>
        <source>larger than %1 bytes</source>
        <translation>大于 %1 字节</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="39"/>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="40"/>
        <source>the document is %1; a topology may be at most %2 bytes (1 MiB). Check that this is a topology file; a setup that large must be split into several topologies</source>
        <translation>文档大小为 %1；拓扑最多 %2 字节（1 MiB）。请确认这是拓扑文件；如此大的配置须拆分为多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="59"/>
        <source>%1 %2; at most %3 are supported (%4)</source>
        <translation>%1 个%2；最多支持 %3 个（%4）</translation>
    </message>
    <message>
        <source>a run starts at most %1 processes; split the setup into several topologies</source>
        <translation type="vanished">一次运行最多启动 %1 个进程；请将配置拆分为多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="64"/>
        <source>a topology holds at most %1 nodes; split the setup into several topologies</source>
        <translation>一个拓扑最多包含 %1 个节点；请把配置拆成多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="70"/>
        <source>host field</source>
        <translation>主机字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="104"/>
        <source>adversary field</source>
        <translation>攻击者字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="109"/>
        <source>&apos;%1&apos; is not an attack; use one of: %2</source>
        <translation>“%1”不是攻击方式；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="115"/>
        <source>%1 takes no strength</source>
        <translation>%1 不需要强度</translation>
    </message>
    <message>
        <location filename="../backend/topology/SimulationCheck.cpp" line="56"/>
        <source>takes the seconds one local step costs on the simulated device (e.g. 0.02), or &quot;measured&quot;</source>
        <translation>取模拟设备上一个本地步骤所需的秒数（例如 0.02），或 &quot;measured&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/SimulationCheck.cpp" line="67"/>
        <source>%1 is read as a probability per round, which must be from 0.000001 to 1 (a trace file named so: its absolute path)</source>
        <translation>%1 被读作每轮的概率，必须在 0.000001 到 1 之间（如此命名的轨迹文件请写其绝对路径）</translation>
    </message>
    <message>
        <location filename="../backend/topology/SimulationCheck.cpp" line="75"/>
        <source>the trace file &apos;%1&apos; is a relative path, which would be read from wherever hips is started; write its absolute path</source>
        <translation>轨迹文件 &apos;%1&apos; 是相对路径，会从 hips 启动时所在的目录读取；请写其绝对路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/SimulationCheck.cpp" line="80"/>
        <source>takes &quot;always&quot;, a probability per round (e.g. 0.8), or the path of a trace file of on-intervals</source>
        <translation>取 &quot;always&quot;、每轮的概率（例如 0.8），或在线区间轨迹文件的路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="149"/>
        <source>must be an object with host and port</source>
        <translation>必须是包含 host 和 port 的对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="161"/>
        <source>the central party has no WAN of its own: each other party&apos;s wan shapes its link to the central party</source>
        <translation>中心参与方没有自己的广域网链路：其他每个参与方的 wan 设置决定它到中心参与方的链路</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="167"/>
        <source>wan field</source>
        <translation>wan 字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="171"/>
        <source>a wan needs its bandwidth_mbps (megabits per second)</source>
        <translation>wan 需要 bandwidth_mbps（每秒兆比特）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="181"/>
        <source>%1 is neither a fraction below 1 nor a whole number of workers</source>
        <translation>%1 既不是小于 1 的比例，也不是整数个工作节点</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="200"/>
        <source>&apos;%1&apos; is not a transport; use one of: %2</source>
        <translation>“%1”不是传输方式；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="210"/>
        <source>%1 is not a setting of transport %2; remove it</source>
        <translation>%1 不是传输方式 %2 的设置；请删除它</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="215"/>
        <source>%1 must be a whole number</source>
        <translation>%1 必须是整数</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="225"/>
        <source>party field</source>
        <translation>参与方字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="250"/>
        <source>role &apos;%1&apos; belongs to %2; %3 uses: %4</source>
        <translation>角色“%1”属于%2；%3使用：%4</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="252"/>
        <source>an ordinary party</source>
        <translation>普通参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="253"/>
        <location filename="../backend/topology/TopologyReader.cpp" line="254"/>
        <source>the central party</source>
        <translation>中心参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="255"/>
        <source>this party</source>
        <translation>该参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="257"/>
        <source>unknown role &apos;%1&apos;; expected one of: %2</source>
        <translation>未知角色“%1”；应为以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="273"/>
        <source>must be an object with host and count</source>
        <translation>必须是包含 host 和 count 的对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/PrivacyFields.cpp" line="23"/>
        <source>rerun_rounds lists [first, last] pairs of rounds (1 to %1, first &lt;= last), as a resume writes them; give that or leave it out</source>
        <translation>rerun_rounds 列出轮次的 [first, last] 对（1 到 %1，first &lt;= last），由恢复运行写入；请按此格式给出，或将其删除</translation>
    </message>
    <message>
        <location filename="../backend/topology/PrivacyFields.cpp" line="41"/>
        <source>privacy field</source>
        <translation>隐私字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/PrivacyFields.cpp" line="57"/>
        <source>poisson sampling needs each example&apos;s gradient clipped, which the workers do not do yet; use &quot;none&quot; (each round one Gaussian mechanism over the whole update)</source>
        <translation>poisson 采样需要对每个样本的梯度裁剪，而工作节点目前还不这样做；请使用 &quot;none&quot;（每轮对整个更新施加一次高斯机制）</translation>
    </message>
    <message>
        <location filename="../backend/topology/PrivacyFields.cpp" line="63"/>
        <source>&quot;auto&quot; sets the noise from target_epsilon and the rounds: give target_epsilon, or a number</source>
        <translation>&quot;auto&quot; 根据 target_epsilon 和轮数确定噪声：请给出 target_epsilon，或一个数值</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="353"/>
        <source>training setting</source>
        <translation>训练设置</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="361"/>
        <source>outputs are a regression&apos;s: write &quot;task&quot;: &quot;regression&quot;, or &quot;classes&quot; for a classifier</source>
        <translation>outputs 属于回归任务：请写 &quot;task&quot;: &quot;regression&quot;；分类器请用 &quot;classes&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="366"/>
        <source>a regression has outputs, not classes: write &quot;outputs&quot; (the targets a sample has, 1 by default)</source>
        <translation>回归任务用 outputs，而不是 classes：请写 &quot;outputs&quot;（每个样本的目标数，默认为 1）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="411"/>
        <source>a threshold is secure aggregation&apos;s: add &quot;secure_aggregation&quot;: true</source>
        <translation>门限是安全聚合的设置：请添加 &quot;secure_aggregation&quot;: true</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="419"/>
        <source>top-level field</source>
        <translation>顶层字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="421"/>
        <source>must be &quot;%1&quot;</source>
        <translation>必须为 &quot;%1&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="425"/>
        <source>version %1 is newer than this program reads (%2); upgrade HiPS Studio</source>
        <translation>版本 %1 比本程序能读取的（%2）更新；请升级 HiPS Studio</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="435"/>
        <source>must be an object with id and address</source>
        <translation>必须是包含 id 和 address 的对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="440"/>
        <source>each party runs at least 3 processes and %1</source>
        <translation>每个参与方至少运行 3 个进程，且%1</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="445"/>
        <source>must be an object with id and roles</source>
        <translation>必须是包含 id 和 roles 的对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="469"/>
        <source>cannot open the file (%1); check the path</source>
        <translation>无法打开文件（%1）；请检查路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="490"/>
        <source>cannot read the file (%1); check the path</source>
        <translation>无法读取文件（%1）；请检查路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="514"/>
        <source>not valid UTF-8 at line %1 (offset %2); save the file as UTF-8</source>
        <translation>第 %1 行（偏移 %2）不是有效的 UTF-8；请将文件保存为 UTF-8</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="522"/>
        <source>the file is empty; a topology is a JSON object (resources/topologies/default.json is one, or draw one in hips-studio)</source>
        <translation>文件是空的；拓扑是一个 JSON 对象（resources/topologies/default.json 就是一个，也可以在 hips-studio 中绘制）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="531"/>
        <source>not valid JSON at line %1 (offset %2): %3</source>
        <translation>第 %1 行（偏移 %2）不是有效的 JSON：%3</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyReader.cpp" line="538"/>
        <source>the document must be a JSON object</source>
        <translation>文档必须是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="39"/>
        <source>the topology name</source>
        <translation>拓扑名称</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="61"/>
        <source>%1 %2 is out of range; use an integer in [%3, %4]</source>
        <translation>%1 %2 超出范围；请使用 [%3, %4] 内的整数</translation>
    </message>
    <message>
        <source>the topology starts %1 processes; a run may start at most %2. Use fewer workers, or split the setup into several topologies</source>
        <translation type="vanished">该拓扑会启动 %1 个进程；一次运行最多启动 %2 个。请减少工作节点，或将配置拆分为多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="75"/>
        <source>%1 parties; at most %2 are supported (each runs at least 3 of the at most %3 processes); split the setup into several topologies</source>
        <translation>%1 个参与方；最多支持 %2 个（每个至少运行最多 %3 个进程中的 3 个）；请将配置拆分为多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="82"/>
        <source>%1 hosts; at most %2 are supported; declare only the hosts that run processes</source>
        <translation>%1 台主机；最多支持 %2 台；只声明运行进程的主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="92"/>
        <source>host id</source>
        <translation>主机 ID</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="23"/>
        <source>: data path</source>
        <translation>：数据路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="27"/>
        <source>%1: data path &apos;%2&apos; is relative; write the absolute path on the party&apos;s hosts</source>
        <translation>%1：数据路径“%2”是相对路径；请写出它在参与方主机上的绝对路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="32"/>
        <source>: data option </source>
        <translation>：数据选项 </translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="37"/>
        <source>%1: holdout %2 is not a fraction in (0, 0.9]; give the share of samples the party tests on, e.g. 0.1</source>
        <translation>%1：holdout %2 不是 (0, 0.9] 内的比例；请给出参与方用于测试的样本比例，例如 0.1</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="93"/>
        <source>party &apos;%1&apos; reads %2 and party &apos;%3&apos; reads %4, one inside the other: a party&apos;s data is its own and only its hosts read it; give each party a path of its own</source>
        <translation>参与方“%1”读取 %2，参与方“%3”读取 %4，其中一个位于另一个之内：参与方的数据只属于它自己，只有它的主机读取；请为每个参与方指定各自的路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="106"/>
        <source>the master&apos;s test set %1 and party &apos;%2&apos;&apos;s data %3 are one inside the other: the model would be scored on rows it trained on; give the test set a path of its own</source>
        <translation>主节点的测试集 %1 与参与方“%2”的数据 %3 互相包含：模型将在它训练过的样本上评分；请为测试集指定单独的路径</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="118"/>
        <source>the model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="125"/>
        <source>the built-in models take square images, not %1 x %2; resize the images, or bring your own model as TorchScript</source>
        <translation>内置模型只接受方形图像，而不是 %1 x %2；请调整图像尺寸，或以 TorchScript 形式提供自己的模型</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="142"/>
        <source>a regression trains on the parties&apos; own data: give each party a &quot;data&quot; source (csv, npy or npz with float targets) and training.evaluation_data</source>
        <translation>回归任务使用各参与方自己的数据训练：请为每个参与方提供 &quot;data&quot; 数据源（带浮点目标值的 csv、npy 或 npz），并设置 training.evaluation_data</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="151"/>
        <source>a regression reads float targets from csv, npy or npz; %1 holds class labels</source>
        <translation>回归任务从 csv、npy 或 npz 读取浮点目标值；%1 存放的是类别标签</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="158"/>
        <source>a regression&apos;s targets are numbers, not classes: remove &quot;classes&quot;</source>
        <translation>回归任务的目标值是数值，而不是类别：请删除 &quot;classes&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="167"/>
        <source>partition %1 splits by class, and a regression has none: use iid (each party&apos;s own data is its own split already)</source>
        <translation>划分方式 %1 按类别划分，而回归任务没有类别：请使用 iid（每个参与方自己的数据本身就是它的那一份）</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="181"/>
        <source>party &apos;%1&apos;</source>
        <translation>参与方“%1”</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="186"/>
        <location filename="../backend/topology/TopologyValidation.cpp" line="94"/>
        <source>host &apos;%1&apos;</source>
        <translation>主机“%1”</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="189"/>
        <source>host &apos;%1&apos; runs workers of %2 parties, and a party&apos;s data is its own: give each party its data instead of the host</source>
        <translation>主机“%1”运行 %2 个参与方的工作节点，而参与方的数据只属于它自己：请把数据分别交给各参与方，而不是交给主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="197"/>
        <source>evaluation_data</source>
        <translation>evaluation_data</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="200"/>
        <source>the master&apos;s test set is all test: holdout is for a party&apos;s data; remove it here</source>
        <translation>主工作节点的测试集全部用于测试：holdout 只用于参与方的数据；请在这里删除它</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="210"/>
        <source>%1 codes the workers of party &apos;%2&apos; over one data set: give the party one &quot;data&quot; source, not host &apos;%3&apos; a source of its own</source>
        <translation>%1 基于同一个数据集对参与方“%2”的工作节点编码：请给该参与方一个 &quot;data&quot; 数据源，而不是给主机“%3”单独的数据源</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="220"/>
        <source>mode %1 trains one model alone on the run&apos;s dataset, and the parties&apos; own data never leaves their hosts: pick a federated mode, or remove every party&apos;s &quot;data&quot; to train on the dataset</source>
        <translation>模式 %1 只在本次运行的数据集上单独训练一个模型，而各参与方自己的数据从不离开其主机：请选择一种联邦模式，或删除每个参与方的 &quot;data&quot; 以在数据集上训练</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="231"/>
        <source>party &apos;%1&apos; trains but has no data of its own, and other parties bring theirs: give it a &quot;data&quot; source, or remove every party&apos;s &quot;data&quot; to split the run&apos;s dataset over all</source>
        <translation>参与方“%1”参与训练却没有自己的数据，而其他参与方带有各自的数据：请给它一个 &quot;data&quot; 数据源，或删除所有参与方的 &quot;data&quot;，以便将本次运行的数据集划分给所有参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataValidation.cpp" line="237"/>
        <source>the parties bring their own data: declare the master&apos;s test set as training.evaluation_data (a source like a party&apos;s &quot;data&quot;)</source>
        <translation>各参与方带有自己的数据：请将主工作节点的测试集声明为 training.evaluation_data（与参与方的 &quot;data&quot; 形式相同的数据源）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="69"/>
        <source>the topology holds %1 nodes; a topology may hold at most %2. Use fewer workers, or split the setup into several topologies</source>
        <translation>该拓扑包含 %1 个节点；一个拓扑最多包含 %2 个。请减少工作节点，或把配置拆成多个拓扑</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="95"/>
        <source>this host</source>
        <translation>该主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="115"/>
        <source>host &apos;%1&apos; is this machine&apos;s loopback (%2) beside remote host &apos;%3&apos; (%4): roles on other machines cannot reach it; give it an address they can reach</source>
        <translation>主机“%1”是本机的回环地址（%2），而同一拓扑中有远程主机“%3”（%4）：其他机器上的角色无法连到它；请给它一个它们能连到的地址</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="128"/>
        <source>duplicate host id &apos;%1&apos;; give every host its own id</source>
        <translation>主机 ID“%1”重复；请为每台主机指定唯一 ID</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="131"/>
        <source>no hosts; declare at least one</source>
        <translation>没有主机；请至少声明一台</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="140"/>
        <source>hosts &apos;%1&apos; and &apos;%2&apos; share address %3 and agent_port %4; give each its own agent_port</source>
        <translation>主机“%1”和“%2”共用地址 %3 和 agent_port %4；请为每台主机指定各自的 agent_port</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="145"/>
        <source>hosts &apos;%1&apos; and &apos;%2&apos; share address %3 and install_dir %4; give each its own install_dir</source>
        <translation>主机“%1”和“%2”共用地址 %3 和 install_dir %4；请为每台主机指定各自的 install_dir</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="45"/>
        <source>&apos;%1&apos; is not of the form --name=value (letters, digits and _.,:@+/-[] only)</source>
        <translation>&apos;%1&apos; 不是 --name=value 的形式（只能用字母、数字和 _.,:@+/-[]）</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="48"/>
        <source>%1 is not an sbatch option a launcher may add; use one of: %2</source>
        <translation>%1 不是启动器可以添加的 sbatch 选项；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="59"/>
        <source>must be a list of strings such as &quot;--qos=normal&quot;</source>
        <translation>必须是字符串列表，例如 &quot;--qos=normal&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="64"/>
        <source>at most 64 options</source>
        <translation>最多 64 个选项</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="74"/>
        <source>ssh launcher field</source>
        <translation>ssh 启动器字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="79"/>
        <source>slurm launcher field</source>
        <translation>slurm 启动器字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="148"/>
        <source>the central party runs over SSH or on this machine (its master&apos;s model comes back over SSH); give a Slurm launcher to another party</source>
        <translation>中心参与方通过 SSH 或在本机运行（其主节点的模型通过 SSH 取回）；请把 Slurm 启动器给其他参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="153"/>
        <location filename="../backend/topology/TopologyValidation.cpp" line="154"/>
        <location filename="../backend/topology/TopologyValidation.cpp" line="163"/>
        <source>host &apos;%1&apos; is not declared in $.hosts; add it there or fix the name</source>
        <translation>主机“%1”未在 $.hosts 中声明；请在那里添加它或修正名称</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="158"/>
        <source>&apos;%1&apos; is not a Slurm name (letters, digits, _ . - only)</source>
        <translation>&apos;%1&apos; 不是 Slurm 名称（只能用字母、数字、_ . -）</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="162"/>
        <source>&apos;%1&apos; is not a time limit; write HH:MM:SS or D-HH:MM:SS</source>
        <translation>&apos;%1&apos; 不是时间限制；请写成 HH:MM:SS 或 D-HH:MM:SS</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="169"/>
        <source>&apos;%1&apos; is not a plain path (letters, digits and _.~/+- only)</source>
        <translation>&apos;%1&apos; 不是普通路径（只能用字母、数字和 _.~/+-）</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="176"/>
        <source>&apos;%1&apos; starts from neither / nor ~/ (the login user&apos;s home); write it from one of them</source>
        <translation>“%1”既不以 / 开头，也不以 ~/（登录用户的主目录）开头；请从二者之一写起</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="182"/>
        <source>the party&apos;s roles name %1 hosts (%2) and the job asks for %3 nodes; each host is one node: raise nodes or place the roles on fewer hosts</source>
        <translation>该参与方的角色使用 %1 台主机（%2），而作业只申请了 %3 个节点；每台主机对应一个节点：请增加 nodes，或把角色放到更少的主机上</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="193"/>
        <source>host &apos;%1&apos; runs roles of party %2 too; a Slurm party&apos;s hosts are its job&apos;s nodes: give it hosts of its own</source>
        <translation>主机 &apos;%1&apos; 也运行参与方 %2 的角色；Slurm 参与方的主机就是其作业的节点：请给它独立的主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="199"/>
        <source>host &apos;%1&apos; is party %2&apos;s login host; give this party hosts of its own</source>
        <translation>主机 &apos;%1&apos; 是参与方 %2 的登录主机；请给本参与方独立的主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyLauncher.cpp" line="204"/>
        <source>host &apos;%1&apos; runs this party&apos;s roles; the login host only submits the job</source>
        <translation>主机 &apos;%1&apos; 运行本参与方的角色；登录主机只负责提交作业</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="213"/>
        <source>the standby host is the server&apos;s own host &apos;%1&apos;; name another host</source>
        <translation>备用主机就是该服务器自己的主机 &apos;%1&apos;；请指定另一台主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="219"/>
        <source>the global scheduler keeps the copy of the model a standby starts from, and it runs on &apos;%1&apos;, which a lost host would take with it: put the global scheduler on a host that is neither the global server&apos;s nor its standby&apos;s</source>
        <translation>全局调度器保存备用主机据以启动的模型副本，而它运行在 &apos;%1&apos; 上，主机丢失时副本会随之丢失：请把全局调度器放在既不是全局服务器的主机、也不是其备用主机的主机上</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="172"/>
        <source>a standby host takes over only under fault_policy continue; set it, or remove standby_host</source>
        <translation>备用主机只在 fault_policy continue 下接管；请设置它，或删除 standby_host</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="181"/>
        <source>the standby host is the master&apos;s own host &apos;%1&apos;; name another host</source>
        <translation>备用主机就是主工作节点自己的主机 &apos;%1&apos;；请指定另一台主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="191"/>
        <source>the standby host is the state service&apos;s own host &apos;%1&apos;; name another host</source>
        <translation>备用主机就是状态服务自己的主机 &apos;%1&apos;；请指定另一台主机</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="201"/>
        <source>port %1 on the standby host &apos;%2&apos; is already used by %3; choose a free port</source>
        <translation>备用主机 &apos;%2&apos; 上的端口 %1 已被 %3 使用；请选择一个空闲端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="230"/>
        <source>&apos;%1&apos; is not a device; use cpu or cuda:N</source>
        <translation>“%1”不是设备；请使用 cpu 或 cuda:N</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="241"/>
        <source>port %1 on host &apos;%2&apos; is already used by %3; choose a free port</source>
        <translation>主机“%2”上的端口 %1 已被 %3 使用；请选择空闲端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="249"/>
        <source>port %1 on host &apos;%2&apos; is where hips-agent listens (agent_port of host &apos;%3&apos;); choose another port</source>
        <translation>主机 &apos;%2&apos; 上的端口 %1 是 hips-agent 监听的端口（主机 &apos;%3&apos; 的 agent_port）；请选择另一个端口</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="264"/>
        <source>duplicate party id &apos;%1&apos;; give every party its own id</source>
        <translation>参与方 ID“%1”重复；请为每个参与方指定唯一 ID</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="266"/>
        <source>party id</source>
        <translation>参与方 ID</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="271"/>
        <source>no central party; mark the party holding the global scheduler, global server and master worker with &quot;central&quot;: true</source>
        <translation>没有中心参与方；请用 &quot;central&quot;: true 标记包含全局调度器、全局服务器和主工作节点的参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="276"/>
        <source>%1 parties are marked central; exactly one must be</source>
        <translation>%1 个参与方被标记为中心；必须恰好一个</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="278"/>
        <source>no ordinary party; add at least one party with a scheduler, a server and workers</source>
        <translation>没有普通参与方；请至少添加一个含调度器、服务器和工作节点的参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="285"/>
        <location filename="../backend/topology/TopologyValidation.cpp" line="288"/>
        <source>party &apos;%1&apos; has no %2; add one</source>
        <translation>参与方“%1”没有 %2；请添加一个</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="303"/>
        <source>mode %1 needs a state service in the central party &apos;%2&apos;: add &quot;state_service&quot;: {&quot;port&quot;: N} to its roles</source>
        <translation>模式 %1 需要中心参与方“%2”中的状态服务：在其 roles 中加入 &quot;state_service&quot;: {&quot;port&quot;: N}</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="395"/>
        <source>privacy where &quot;party&quot; clips each worker&apos;s whole update by its norm, and each party server holds only a slice of it: use one server per party</source>
        <translation>隐私位置为 &quot;party&quot; 时按范数裁剪每个工作节点的完整更新，而每个参与方服务器只持有其中一片：请每个参与方使用一个服务器</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="138"/>
        <source>%1 needs mode %3 (workers whose rounds are the same local work on the same data); mode is %2</source>
        <translation>%1 需要模式 %3（各工作节点每轮在相同数据上做相同的本地计算）；当前模式为 %2</translation>
    </message>
    <message>
        <source>%1 servers given; this version runs one server per party (key slicing across servers is planned); keep one</source>
        <translation type="vanished">给出了 %1 个服务器；此版本每个参与方运行一个服务器（跨服务器的键切分在计划中）；请保留一个</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="290"/>
        <source>%1 %2 given; a party runs at most %3</source>
        <translation>给出了 %1 个 %2；一个参与方最多运行 %3 个</translation>
    </message>
    <message>
        <source>mode esync needs a state service in the central party &apos;%1&apos;: add &quot;state_service&quot;: {&quot;port&quot;: N} to its roles</source>
        <translation type="vanished">esync 模式需要中心参与方“%1”中的状态服务：请在其角色中添加 &quot;state_service&quot;: {&quot;port&quot;: N}</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="308"/>
        <source>the central party &apos;%1&apos; has no master_worker; add one</source>
        <translation>中心参与方“%1”没有 master_worker；请添加一个</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="322"/>
        <source>party &apos;%1&apos; has no workers; add a group with count &gt;= 1</source>
        <translation>参与方“%1”没有工作节点；请添加一个 count &gt;= 1 的组</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="331"/>
        <source>set exactly one of local_iters and local_epochs above 0</source>
        <translation>local_iters 和 local_epochs 中须恰好一个大于 0</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="335"/>
        <source>%1 attackers a round, but the run has %2 training workers</source>
        <translation>每轮 %1 个攻击者，但本次运行只有 %2 个训练工作节点</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="20"/>
        <source>%1 or %2</source>
        <translation>%1 或 %2</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="62"/>
        <source>mode %1 syncs workers with their party server; central workers have none: set train_central_workers to false</source>
        <translation>%1 模式让工作节点与所在参与方的服务器同步；中心工作节点没有这样的服务器：请将 train_central_workers 设为 false</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="69"/>
        <source>mode %1 counts a round in synchronisations: set local_iters (synchronisations per round) instead of local_epochs</source>
        <translation>%1 模式按同步次数计轮：请设置 local_iters（每轮同步次数）而不是 local_epochs</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="77"/>
        <source>mode %1 pushes gradients, and model %2&apos;s BatchNorm statistics have none: they would never leave their initial values; choose a mode that pushes models (%3) or another model</source>
        <translation>模式 %1 推送梯度，而模型 %2 的 BatchNorm 统计量没有梯度：它们将一直停留在初始值；请选择推送模型的模式（%3）或换一个模型</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="85"/>
        <source>mode %1 applies pushes as they come and keeps no checkpoints; only the modes with rounds at the global server resume (%2)</source>
        <translation>模式 %1 随到随应用推送，不保存检查点；只有全局服务器按轮进行的模式才能恢复（%2）</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="93"/>
        <source>a flat run has no party servers; mode %1 needs them: use %2, or hierarchy two_layer</source>
        <translation>扁平运行没有参与方服务器；模式 %1 需要它们：请使用 %2，或 hierarchy two_layer</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="101"/>
        <source>mode %1 applies each push at the global server as it comes; aggregation %2 needs a round&apos;s contributions: use %3, or a mode with rounds (%4)</source>
        <translation>模式 %1 在全局服务器上随到随应用每次推送；聚合规则 %2 需要一轮的全部贡献：请使用 %3，或按轮进行的模式（%4）</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="112"/>
        <source>mode %1 forwards each push from the party servers as it comes; party_aggregation %2 needs a round&apos;s contributions: use %3, or a mode with rounds (%4)</source>
        <translation>模式 %1 随到随转发参与方服务器的每次推送；party_aggregation %2 需要一轮的全部贡献：请使用 %3，或按轮进行的模式（%4）</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="124"/>
        <source>mode %1 cannot go on without one of its processes (%2): use fault_policy fail, or %3</source>
        <translation>模式 %1 缺少任一进程（%2）都无法继续：请使用 fault_policy fail，或 %3</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="138"/>
        <source>mode %1 has no round of model deltas at the global server for server optimizer %2 to step with: use %3, or server_optimizer sgd with server_lr 1</source>
        <translation>模式 %1 在全局服务器上没有按轮的模型增量供服务器优化器 %2 更新：请使用 %3，或 server_optimizer sgd 且 server_lr 为 1</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="149"/>
        <source>mode %1 pushes gradients, and the TorchScript model has %2 floating buffers (BatchNorm&apos;s running statistics, say) that no gradient moves: they would never leave the file&apos;s values; choose a mode that pushes models (%3) or a model without them</source>
        <translation>模式 %1 推送梯度，而该 TorchScript 模型有 %2 个浮点缓冲区（例如 BatchNorm 的运行统计量），没有梯度会改变它们：它们将永远停留在文件中的值；请选择推送模型的模式（%3），或不含这些缓冲区的模型</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="171"/>
        <source>privacy accounts one noised update per worker and round, and mode %1 pushes otherwise: use mode fedavg</source>
        <translation>隐私核算按每个工作节点每轮一个加噪更新计算，而 %1 模式的推送方式不同：请使用 fedavg 模式</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="178"/>
        <source>privacy where &quot;party&quot; noises at the party servers, and hierarchy flat has none: use hierarchy two_layer, or where &quot;worker&quot;</source>
        <translation>隐私位置为 &quot;party&quot; 时在参与方服务器上加噪，而 hierarchy flat 没有参与方服务器：请使用 hierarchy two_layer，或位置 &quot;worker&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="187"/>
        <source>aggregation %1 decodes identical copies of each update, and privacy noises every copy on its own: no copies would agree and the model would not train; turn privacy off or choose another aggregation</source>
        <translation>聚合规则 %1 解码每个更新的相同副本，而差分隐私为每个副本单独加噪：副本不会一致，模型将无法训练；请关闭隐私或选择其他聚合规则</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="198"/>
        <source>privacy where &quot;party&quot; noises at the party servers, and central workers push to the global server without one: set train_central_workers to false, or where &quot;worker&quot;</source>
        <translation>隐私 where &quot;party&quot; 在参与方服务器上加噪，而中心工作节点不经参与方服务器直接推送到全局服务器：请将 train_central_workers 设为 false，或使用 where &quot;worker&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="207"/>
        <source>privacy where &quot;party&quot; clips each worker&apos;s update and sums them at the party server; party_aggregation %1 would choose among them: use fedavg</source>
        <translation>隐私位置为 &quot;party&quot; 时在参与方服务器上裁剪并求和各工作节点的更新；参与方聚合规则 %1 会在其中做选择：请使用 fedavg</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="235"/>
        <source>mode %1 trains the master worker alone on the whole training set: nothing is sent or aggregated, so this has no effect</source>
        <translation>%1 模式下主工作节点单独在整个训练集上训练：不发送也不聚合任何数据，因此此项不起作用</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="240"/>
        <source>mode %1 with hierarchy flat: the workers push straight to the global server, and there is no party tier for this to act on</source>
        <translation>%1 模式且层级为 flat：工作节点直接推送到全局服务器，没有参与方层级供此项作用</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="245"/>
        <source>mode %1 applies pushes as they come and keeps no checkpoints</source>
        <translation>%1 模式在推送到达时立即应用，不保存检查点</translation>
    </message>
    <message>
        <source>mode %1 pushes gradients, and model %2&apos;s BatchNorm statistics have none: they would never leave their initial values; choose a mode that pushes models (fedavg, esync, …) or another model</source>
        <translation type="vanished">%1 模式推送梯度，而模型 %2 的 BatchNorm 统计量没有梯度：它们将永远停留在初始值；请选择推送模型的模式（fedavg、esync 等）或其他模型</translation>
    </message>
    <message>
        <source>eval_every (%1) is larger than rounds (%2); the model would never be evaluated</source>
        <translation type="vanished">eval_every（%1）大于 rounds（%2）；模型将永远不会被评估</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="339"/>
        <source>resume_round (%1) must be below rounds (%2): a run resumes from a checkpoint before its end</source>
        <translation>resume_round（%1）必须小于 rounds（%2）：运行只能从结束前的检查点恢复</translation>
    </message>
    <message>
        <source>mode %1 applies pushes as they come and keeps no checkpoints; only the modes with rounds at the global server resume</source>
        <translation type="vanished">%1 模式随到随用推送，不保存检查点；只有全局服务器按轮聚合的模式才能恢复</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="361"/>
        <source>party &apos;%1&apos; has %2 servers and the central party %3 global servers; each party server relays its slice of the model to the global server of the same rank: give every party as many servers as there are global servers</source>
        <translation>参与方“%1”有 %2 个服务器，而中心参与方有 %3 个全局服务器；每个参与方服务器把它的模型分片转发给同序号的全局服务器：请让每个参与方的服务器数与全局服务器数相同</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="372"/>
        <source>mode %1 applies each push as it comes, and every server would count its own versions, so a model put together from several servers would mix them: run %1 with one server per party</source>
        <translation>模式 %1 在每次推送到达时立即应用，每个服务器各自计数版本，由多个服务器拼成的模型会混合不同版本：请在每个参与方只用一个服务器运行 %1</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="382"/>
        <source>%1 compares whole updates, and each of the %2 global servers holds only a slice of them: use one global server, or a coordinate-wise rule (fedavg, mean, median, trimmed_mean)</source>
        <translation>%1 比较完整的更新，而 %2 个全局服务器各自只持有其中一个分片：请使用一个全局服务器，或逐坐标的规则（fedavg、mean、median、trimmed_mean）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="389"/>
        <source>%1 compares whole updates, and each party server holds only a slice of them: use one server per party, or a coordinate-wise rule (fedavg, mean, median, trimmed_mean)</source>
        <translation>%1 比较完整的更新，而每个参与方服务器只持有其中一个分片：请每个参与方使用一个服务器，或逐坐标的规则（fedavg、mean、median、trimmed_mean）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="400"/>
        <source>under fault_policy continue each server would close its round with the workers it heard from, so the slices of one model could come from different workers: use fault_policy fail, or one server per party</source>
        <translation>在 fault_policy continue 下，每个服务器会以它收到的工作节点结束其轮次，一个模型的各分片可能来自不同的工作节点：请使用 fault_policy fail，或每个参与方一个服务器</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="408"/>
        <source>with slice_bound %1, server %2 of %3 would hold none of model %4&apos;s keys: lower slice_bound, or run fewer servers</source>
        <translation>slice_bound 为 %1 时，%3 个服务器中的第 %2 个将不持有模型 %4 的任何键：请降低 slice_bound，或减少服务器数</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyValidation.cpp" line="418"/>
        <source>a quorum lets each server close its round with different contributions, so the slices of one model would come from different workers: remove quorum, or use one server per party</source>
        <translation>法定数让每个服务器以不同的贡献结束其轮次，一个模型的各分片会来自不同的工作节点：请去掉 quorum，或每个参与方使用一个服务器</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="43"/>
        <source>partition &apos;%1&apos; is not supported; use one of: %2</source>
        <translation>不支持划分方式“%1”；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="46"/>
        <source>mode &apos;%1&apos; is not supported; use one of: %2</source>
        <translation>不支持模式“%1”；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="49"/>
        <location filename="../backend/topology/RuleValidation.cpp" line="53"/>
        <source>aggregation &apos;%1&apos; is not supported; use one of: %2</source>
        <translation>不支持聚合规则“%1”；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="61"/>
        <source>%1 is not a setting of mode %2, aggregation %3, party_aggregation %4, partition %5, server_optimizer %6, compression %7 or party_compression %8; remove it or choose the strategy it belongs to</source>
        <translation>%1 不是模式 %2、聚合规则 %3、参与方聚合规则 %4、划分方式 %5、服务器优化器 %6、压缩方式 %7 或参与方内压缩方式 %8 的设置；请删除它，或选择它所属的策略</translation>
    </message>
    <message>
        <source>a flat run has no party servers; mode %1 needs them: use fedavg or ssgd, or hierarchy two_layer</source>
        <translation type="vanished">扁平运行没有参与方服务器；%1 模式需要它们：请使用 fedavg 或 ssgd，或将 hierarchy 设为 two_layer</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="82"/>
        <source>a flat run has no party servers to run party_aggregation %1: set it to fedavg</source>
        <translation>扁平运行没有参与方服务器来执行参与方聚合规则 %1：请将其设为 fedavg</translation>
    </message>
    <message>
        <source>mode %1 applies each push at the global server as it comes; aggregation %2 needs a round&apos;s contributions: use fedavg, or a mode with rounds (fedavg, ssgd, esync, hfa)</source>
        <translation type="vanished">%1 模式在全局服务器上随到随用每个推送；聚合规则 %2 需要一轮的全部贡献：请使用 fedavg，或按轮的模式（fedavg、ssgd、esync、hfa）</translation>
    </message>
    <message>
        <source>mode %1 forwards each push from the party servers as it comes; party_aggregation %2 needs a round&apos;s contributions: use fedavg, or a mode with rounds</source>
        <translation type="vanished">%1 模式由参与方服务器随到随转发每个推送；参与方聚合规则 %2 需要一轮的全部贡献：请使用 fedavg，或按轮的模式</translation>
    </message>
    <message>
        <source>mode %1 cannot go on without one of its processes (%2): use fault_policy fail, or fedavg, ssgd or hfa</source>
        <translation type="vanished">模式 %1 缺少任何一个进程都无法继续（%2）：请使用 fault_policy fail，或 fedavg、ssgd、hfa</translation>
    </message>
    <message>
        <source>every round waits for every device&apos;s step</source>
        <translation type="vanished">每一轮都要等待每个设备的一步</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="126"/>
        <source>it has no rounds to close without it</source>
        <translation>它没有可以在缺少该进程时结束的轮次</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="99"/>
        <source>aggregation %1 takes every worker&apos;s own update through its party server, and the global server cannot tell which are down: use fault_policy fail, or a party rule that keeps updates apart</source>
        <translation>聚合规则 %1 经参与方服务器接收每个工作节点各自的更新，全局服务器无法得知哪些节点已下线：请使用 fault_policy fail，或使用分开保留更新的参与方规则</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="107"/>
        <source>%1 decodes from every worker of a group and cannot go on without one: use fault_policy fail</source>
        <translation>%1 需要组内每个工作节点才能解码，缺少一个就无法继续：请使用 fault_policy fail</translation>
    </message>
    <message>
        <source>mode %1 has no round of model deltas at the global server for server optimizer %2 to step with: use fedavg, esync or hfa, or server_optimizer sgd with server_lr 1</source>
        <translation type="vanished">%1 模式在全局服务器上没有按轮的模型增量供服务器优化器 %2 使用：请使用 fedavg、esync 或 hfa，或使用 server_lr 为 1 的 server_optimizer sgd</translation>
    </message>
    <message>
        <location filename="../backend/topology/ModeConflicts.cpp" line="159"/>
        <source>mode %1 takes one step from the global model each push; FedProx&apos;s proximal term needs local steps: set proximal_mu to 0</source>
        <translation>%1 模式每次推送只从全局模型走一步；FedProx 的近端项需要本地多步：请将 proximal_mu 设为 0</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="132"/>
        <source>%1 codes the workers of one party: set it as party_aggregation (a single party reproduces Draco&apos;s flat setting)</source>
        <translation>%1 对单个参与方的工作节点编码：请将其设为 party_aggregation（单个参与方即重现 Draco 的扁平设置）</translation>
    </message>
    <message>
        <source>%1 needs mode fedavg (workers whose rounds are the same local work on the same data); mode is %2</source>
        <translation type="vanished">%1 需要 fedavg 模式（各轮在相同数据上做相同的本地计算）；当前模式为 %2</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="75"/>
        <source>&apos;%1&apos; is not supported; use curve or sealed</source>
        <translation>不支持“%1”；请使用 curve 或 sealed</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="146"/>
        <source>%1 codes the workers of the parties; central workers push to the global server uncoded: set train_central_workers to false</source>
        <translation>%1 对各参与方的工作节点编码；中心工作节点未经编码直接推送到全局服务器：请将 train_central_workers 设为 false</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="152"/>
        <source>%1 decodes each round&apos;s contributions as the code assigned them to the party&apos;s workers, and a quorum closes rounds without some of them: remove quorum, or use another party_aggregation</source>
        <translation>%1 按编码分配给参与方各工作节点的方式解码每轮的贡献，而法定数会在缺少其中部分贡献时就结束轮次：请去掉 quorum，或使用其他 party_aggregation</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="165"/>
        <source>%1 decodes each round&apos;s contributions as the code assigned them to the party&apos;s workers, and client sampling draws some of them: remove clients_per_round, or use another party_aggregation</source>
        <translation>%1 按编码分配给参与方各 worker 的方式解码每轮的贡献，而客户端采样只抽取其中一部分：请删除 clients_per_round，或换用其他 party_aggregation</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="171"/>
        <source>draco_cyclic decodes only exact codewords, and party_compression %1 rounds every worker&apos;s push: no round would decode; set it to none</source>
        <translation>draco_cyclic 只能解码精确的码字，而 party_compression %1 会对每个 worker 的推送取整：没有一轮能解码；请将其设为 none</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="183"/>
        <source>party &apos;%1&apos; has %2 workers, not a whole number of groups of draco_r %3</source>
        <translation>参与方“%1”有 %2 个工作节点，不能整分为每组 draco_r %3 个</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="207"/>
        <source>party &apos;%1&apos; has workers on %2 and on %3, and %4 compares their pushes bit for bit, which devices of two kinds do not compute alike: put its workers on one</source>
        <translation>参与方“%1”的工作节点分别在 %2 和 %3 上，而 %4 逐位比较它们的推送，两种设备算出的结果并不逐位相同：请把它的工作节点放在同一种设备上</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="223"/>
        <source>raise party_draco_s to %1, or </source>
        <translation>将 party_draco_s 提高到 %1，或</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="225"/>
        <source>raise party_draco_r to %1, or </source>
        <translation>将 party_draco_r 提高到 %1（使其整除该参与方的工作节点数），或</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="227"/>
        <source>party &apos;%1&apos; may have %2 attackers in a round, and %3 decodes exactly with at most %4 (more may win and say nothing): %5attack fewer workers</source>
        <translation>参与方“%1”在一轮中可能有 %2 个攻击者，而 %3 最多只能在 %4 个攻击者下精确解码（更多时攻击者可能得逞且毫无提示）：%5减少被攻击的工作节点</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="246"/>
        <source>draco_cyclic codes at most %1 workers in a party, and party &apos;%2&apos; has %3: split it</source>
        <translation>draco_cyclic 每个参与方最多编码 %1 个工作节点，而参与方“%2”有 %3 个：请拆分它</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="257"/>
        <source>draco_cyclic with draco_s %1 tells liars at neighbouring ranks apart among at most %2 workers at float precision, and party &apos;%3&apos; has %4: a round could decode wrong and say nothing; split the party, lower party_draco_s, or use draco_repetition</source>
        <translation>draco_s 为 %1 的 draco_cyclic 在浮点精度下最多只能在 %2 个工作节点中区分相邻序号的说谎者，而参与方“%3”有 %4 个：某一轮可能解码错误且毫无提示；请拆分该参与方、降低 party_draco_s，或改用 draco_repetition</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="284"/>
        <source>%1 needs at least %2 contributions (%3), and party &apos;%4&apos; has %5: add workers, lower party_byzantine_f or raise the quorum</source>
        <translation>%1 至少需要 %2 个贡献（%3），而参与方“%4”只有 %5：请增加工作节点、降低 party_byzantine_f 或提高法定数</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="303"/>
        <source>%1 needs at least %2 contributions (%3), and the global server&apos;s rounds have %4: add them, lower byzantine_f or raise the quorum</source>
        <translation>%1 至少需要 %2 个贡献（%3），而全局服务器的每轮只有 %4：请增加它们、降低 byzantine_f 或提高法定数</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="333"/>
        <source>set it to at least %1, or use median</source>
        <translation>请将其设为至少 %1，或使用 median</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="334"/>
        <source>use median</source>
        <translation>请使用 median</translation>
    </message>
    <message>
        <location filename="../backend/topology/RuleValidation.cpp" line="335"/>
        <source>trimmed_mean with trim_beta %1 cuts floor(%1 x %2) = 0 values at each end of %3 (%2 contributions): it is the plain mean, which one liar moves anywhere; %4</source>
        <translation>trim_beta 为 %1 的 trimmed_mean 在 %3（%2 个贡献）的两端各截去 floor(%1 x %2) = 0 个值：这就是普通均值，一个说谎者就能把它拉到任意位置；%4</translation>
    </message>
    <message>
        <source>%1 needs at least %2 contributions (%3), and party &apos;%4&apos; has %5 workers; add workers or lower party_byzantine_f</source>
        <translation type="vanished">%1 至少需要 %2 个贡献（%3），而参与方“%4”只有 %5 个工作节点；请增加工作节点或降低 party_byzantine_f</translation>
    </message>
    <message>
        <source>%1 needs at least %2 contributions (%3), and %4 %5 push to the global server; add them or lower byzantine_f</source>
        <translation type="vanished">%1 至少需要 %2 个贡献（%3），而只有 %4 个%5推送到全局服务器；请增加它们或降低 byzantine_f</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="42"/>
        <source>partition by_class gives worker w the classes w·c … w·c+c−1 (mod %1): the %2 workers that split %3 hold %4 of the %1 classes, and nothing trains on the other %5; set classes_per_worker to at least %6, or use dirichlet</source>
        <translation>partition by_class 让工作节点 w 持有类别 w·c … w·c+c−1（模 %1）：划分%3的 %2 个工作节点只持有 %1 个类别中的 %4 个，其余 %5 个类别无人训练；请将 classes_per_worker 设为至少 %6，或使用 dirichlet</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="53"/>
        <source>the dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="57"/>
        <source>party &apos;%1&apos;&apos;s data</source>
        <translation>参与方“%1”的数据</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="73"/>
        <source>%1 is missing on this machine, so the run would fail at its start: install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist) or point data_dir at a folder holding the IDX .gz files</source>
        <translation>本机缺少 %1，运行会在启动时失败：请安装 Debian 软件包 dataset-fashion-mnist（apt-get install dataset-fashion-mnist），或将 data_dir 指向存放 IDX .gz 文件的文件夹</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="84"/>
        <source>mode local trains the master worker alone and sends nothing: the codec has no effect</source>
        <translation>local 模式下只有主工作节点单独训练，不发送任何数据：压缩编码不起作用</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="95"/>
        <source>2bit under mode ssgd loses much of the accuracy (0.66 against 0.87 without a codec on the default topology with the mlp): a step&apos;s change is too small for a 2-bit message; fp16 keeps it (0.87), topk nearly (0.82)</source>
        <translation>ssgd 模式下使用 2bit 会损失相当多的准确率（在默认拓扑上用 mlp 为 0.66，不压缩为 0.87）：每一步的模型变化太小，2 位消息无法表达；fp16 可保持准确率（0.87），topk 接近（0.82）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="102"/>
        <source>server momentum (FedAvgM) with a lossy codec trails (0.73 with topk, 0.65 with 2bit, against 0.84 without one, on the default topology with the mlp): use fp16, or server_optimizer sgd or adam (FedAdam with topk: 0.84)</source>
        <translation>服务器动量（FedAvgM）配合有损编码会落后（在默认拓扑上用 mlp：topk 为 0.73，2bit 为 0.65，不压缩为 0.84）：请使用 fp16，或将 server_optimizer 设为 sgd 或 adam（FedAdam 配合 topk：0.84）</translation>
    </message>
    <message>
        <location filename="../backend/topology/TopologyAdvice.cpp" line="108"/>
        <source>an adaptive server optimizer with 2bit trails (adam: 0.82 against 0.86 without a codec, on the default topology with the mlp): use topk (adam: 0.84) or fp16</source>
        <translation>自适应服务器优化器配合 2bit 会落后（在默认拓扑上用 mlp：adam 为 0.82，不压缩为 0.86）：请使用 topk（adam：0.84）或 fp16</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="24"/>
        <source>must be a list of non-empty names without commas</source>
        <translation>必须是不含逗号的非空名称列表</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="33"/>
        <source>must be a number</source>
        <translation>必须是数字</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="55"/>
        <source>&apos;%1&apos; is not a data format; use one of: %2</source>
        <translation>“%1”不是数据格式；请使用以下之一：%2</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="65"/>
        <source>%1 option</source>
        <translation>%1 选项</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="68"/>
        <source>must be one character, such as &quot;,&quot; or &quot;;&quot;</source>
        <translation>必须是单个字符，例如 &quot;,&quot; 或 &quot;;&quot;</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="88"/>
        <source>model field</source>
        <translation>模型字段</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="95"/>
        <source>must be the file&apos;s SHA-256 as 64 lowercase hex digits (hips run fills it in; remove it)</source>
        <translation>必须是该文件的 SHA-256，即 64 个小写十六进制数字（hips run 会自动填写；请删除它）</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="103"/>
        <source>must list each tensor&apos;s element count, a whole number in [0, 4e9]</source>
        <translation>必须列出每个张量的元素个数，每个为 [0, 4e9] 内的整数</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="117"/>
        <source>&apos;%1&apos; is not a built-in model; use one of: %2, or {&quot;torchscript&quot;: &quot;/path/model.pt&quot;} for a model saved from PyTorch</source>
        <translation>“%1”不是内置模型；请使用以下之一：%2，或对从 PyTorch 保存的模型使用 {&quot;torchscript&quot;: &quot;/path/model.pt&quot;}</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="128"/>
        <source>must be [features] or [channels, height, width], whole numbers in [1, 65536]</source>
        <translation>必须是 [特征数] 或 [通道数, 高度, 宽度]，均为 [1, 65536] 内的整数</translation>
    </message>
    <message>
        <location filename="../backend/topology/DataFields.cpp" line="136"/>
        <source>must be [features] or [channels, height, width]</source>
        <translation>必须是 [特征数] 或 [通道数, 高度, 宽度]</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="27"/>
        <source>secure aggregation hides each party server&apos;s sum among the others&apos;, and this run has %1: use hierarchy two_layer with at least 2 parties</source>
        <translation>安全聚合把每个参与方服务器的和隐藏在其他参与方的和之中，而本次运行只有 %1：请使用 hierarchy two_layer 并至少有 2 个参与方</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="30"/>
        <source>no party servers (hierarchy flat)</source>
        <translation>没有参与方服务器（hierarchy flat）</translation>
    </message>
    <message numerus="yes">
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="31"/>
        <source>%n party server(s)</source>
        <translation>
            <numerusform>%n 个参与方服务器</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="36"/>
        <source>a dropped party&apos;s masks are recovered from the shares the other parties hold, and there are %1 of them: the threshold is at most %1, not %2</source>
        <translation>掉线参与方的掩码由其他参与方持有的份额恢复，而其他参与方只有 %1 个：门限至多为 %1，而不是 %2</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="45"/>
        <source>secure aggregation masks one sum per party and round, and mode %1 pushes otherwise: use fedavg or ssgd</source>
        <translation>安全聚合每个参与方每轮掩码一个和，而模式 %1 的推送方式不同：请使用 fedavg 或 ssgd</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="54"/>
        <source>aggregation %1 needs each party&apos;s own update, and secure aggregation shows the global server only their sum: use fedavg</source>
        <translation>聚合规则 %1 需要每个参与方各自的更新，而安全聚合只让全局服务器看到它们的和：请使用 fedavg</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="60"/>
        <source>masked sums look random and do not compress: set compression to none (party_compression still compresses inside each party)</source>
        <translation>掩码后的和看起来是随机的，无法压缩：请把 compression 设为 none（party_compression 仍在各参与方内部压缩）</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="65"/>
        <source>a quorum closes a round without some parties, whose masks would then have to be recovered every round: remove quorum</source>
        <translation>法定数会在缺少部分参与方时结束一轮，那样每轮都要恢复它们的掩码：请删除 quorum</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="70"/>
        <source>a party past the deadline is alive, and recovering its masks would let its late push be read: set round_timeout_s to 0 (a party that is down is still recovered)</source>
        <translation>超时的参与方仍然在线，恢复它的掩码会让它迟到的推送被读出：请把 round_timeout_s 设为 0（宕机的参与方仍会被恢复）</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="75"/>
        <source>the central workers push to the global server outside any party&apos;s sum: set train_central_workers to false</source>
        <translation>中心工作节点直接向全局服务器推送，不在任何参与方的和之中：请把 train_central_workers 设为 false</translation>
    </message>
    <message>
        <location filename="../backend/topology/SecureAggregationCheck.cpp" line="82"/>
        <source>a standby global server would start without the parties&apos; keys: remove standby_host from %1</source>
        <translation>备用全局服务器启动时不会持有各参与方的密钥：请从 %1 删除 standby_host</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="125"/>
        <source>%1 needs at least %2 contributions a round, and clients_per_round draws as few as %3 %4: draw more, or lower its byzantine_f</source>
        <translation>%1 每轮至少需要 %2 个贡献，而 clients_per_round %4最少只抽取 %3 个：请多抽取，或降低其 byzantine_f</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="141"/>
        <source>in the run</source>
        <translation>在整个运行中</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="145"/>
        <source>a round of the draw</source>
        <translation>一轮抽样</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="161"/>
        <source>in party %1</source>
        <translation>在参与方 %1 中</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="164"/>
        <source>party &apos;%1&apos;&apos;s drawn round</source>
        <translation>参与方 &apos;%1&apos; 的抽样轮次</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="179"/>
        <source>clients_per_round %1 draws more workers than the %2 there are%3</source>
        <translation>clients_per_round %1 抽取的工作节点多于现有的 %2 个%3</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="182"/>
        <source> in party %1</source>
        <translation>（参与方 %1 中）</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="186"/>
        <source>every party draws its own clients_per_round: remove the run&apos;s, or a party&apos;s</source>
        <translation>每个参与方都有自己的 clients_per_round：请删除运行级的设置，或某个参与方的设置</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="194"/>
        <source>clients_per_round draws the workers of each round, and mode %1 does not train in rounds of one push per worker: use fedavg</source>
        <translation>clients_per_round 抽取每轮的工作节点，而模式 %1 不是每个工作节点每轮推送一次：请使用 fedavg</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="202"/>
        <source>aggregation %1 takes every worker&apos;s own update through its party server, which a drawn-out party would not send: use fedavg, or hierarchy flat</source>
        <translation>聚合规则 %1 需要经参与方服务器转发每个工作节点自己的更新，而未被抽中的参与方不会发送：请使用 fedavg，或 hierarchy flat</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="210"/>
        <source>a quorum and clients_per_round both leave workers out of a round: keep one</source>
        <translation>法定数和 clients_per_round 都会让工作节点缺席一轮：请只保留其一</translation>
    </message>
    <message>
        <source>the accountant does not count client sampling yet (it would lower ε): remove clients_per_round or privacy</source>
        <translation type="vanished">隐私核算器尚未计入客户端抽样（它会降低 ε）：请删除 clients_per_round 或 privacy</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="213"/>
        <source>a party none of whose workers is drawn would have its masks recovered every such round: remove clients_per_round or secure_aggregation</source>
        <translation>没有工作节点被抽中的参与方在每个这样的轮次都要恢复其掩码：请删除 clients_per_round 或 secure_aggregation</translation>
    </message>
    <message>
        <location filename="../backend/topology/ClientSampling.cpp" line="223"/>
        <source>the adversaries attack in every round, and clients_per_round would leave them out of some: remove one</source>
        <translation>攻击者每轮都攻击，而 clients_per_round 会让它们缺席部分轮次：请删除其一</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="16"/>
        <source>mode %1 does not sum a party&apos;s workers in rounds; a collective does: use fedavg, ssgd, esync or hfa, or transport server</source>
        <translation>模式 %1 不按轮次汇总参与方的工作节点，而集合通信需要如此：请使用 fedavg、ssgd、esync 或 hfa，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="22"/>
        <source>a flat run has no party tier to sum in: remove transport, or use hierarchy two_layer</source>
        <translation>扁平运行没有可供汇总的参与方层：请删除 transport，或使用 hierarchy two_layer</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="25"/>
        <source>party_aggregation %1 needs each worker&apos;s own update at a party server, and a collective only ever holds sums: use party_aggregation fedavg, or transport server</source>
        <translation>party_aggregation %1 需要在参与方服务器上获得每个工作节点自己的更新，而集合通信只持有总和：请使用 party_aggregation fedavg，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="31"/>
        <source>aggregation %1 takes every worker&apos;s own update through its party server: use fedavg, or transport server</source>
        <translation>aggregation %1 需要每个工作节点的更新经由其参与方服务器：请使用 fedavg，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="36"/>
        <source>party_compression %1 codes the links to a party server, and a collective party has none; its chunks travel as floats, or as half floats with fp16: set it to none or fp16, or use transport server</source>
        <translation>party_compression %1 编码的是到参与方服务器的链路，而集合通信的参与方没有服务器；其分块以浮点数传输，或在 fp16 时以半精度浮点数传输：请设为 none 或 fp16，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="42"/>
        <source>secure aggregation masks a party server&apos;s sum: turn it off, or use transport server</source>
        <translation>安全聚合会掩码参与方服务器的总和：请关闭它，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="45"/>
        <source>privacy where party adds its noise at a party server: use where worker, or transport server</source>
        <translation>privacy where party 在参与方服务器上添加噪声：请使用 where worker，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="48"/>
        <source>fault_policy %1 with mode %2: a collective party sums between syncs with no model from above to agree on, so a worker lost mid-sum could leave the others apart: use fault_policy fail, another mode, or transport server</source>
        <translation>fault_policy %1 与模式 %2：集合通信的参与方在两次同步之间求和，没有来自上层的模型可供对齐，因此求和中途丢失一个工作节点可能使其余节点彼此不一致：请使用 fault_policy fail、其他模式，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="54"/>
        <source>a quorum closes a round without some workers, and a collective sums every one: remove quorum, or use transport server</source>
        <translation>法定数量会在缺少部分工作节点时结束一轮，而集合通信汇总每一个节点：请删除 quorum，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="59"/>
        <source>clients_per_round leaves workers out of a round, and a collective sums every one: remove it, or use transport server</source>
        <translation>clients_per_round 会让部分工作节点不参加某一轮，而集合通信汇总每一个节点：请删除它，或使用 transport server</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="76"/>
        <source>the central party&apos;s workers push to the global servers themselves; transport is for the other parties: remove it</source>
        <translation>中心参与方的工作节点自行推送到全局服务器；transport 用于其他参与方：请删除它</translation>
    </message>
    <message>
        <location filename="../backend/topology/PartyTransport.cpp" line="80"/>
        <source>party %1 draws clients_per_round, and its collective sums every worker: remove one</source>
        <translation>参与方 %1 抽取 clients_per_round，而其集合通信汇总每个工作节点：请删除其中之一</translation>
    </message>
    <message>
        <source>transport_security sealed seals the meshes of parties with a collective transport, and no party here has one (party servers&apos; links stay on CURVE for now): set it to curve, or give a party a transport</source>
        <translation type="vanished">transport_security sealed 用于加密采用集合通信传输方式的参与方之间的网状链路，而这里没有参与方使用它（参与方服务器的链路目前仍使用 CURVE）：请设为 curve，或为某个参与方设置 transport</translation>
    </message>
</context>
<context>
    <name>hips</name>
    <message>
        <source>must be a list of non-empty names without commas</source>
        <translation type="vanished">必须是不含逗号的非空名称列表</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation type="vanished">必须是数字</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a data format; use one of: %2</source>
        <translation type="vanished">“%1”不是数据格式；请使用以下之一：%2</translation>
    </message>
    <message>
        <source>%1 option</source>
        <translation type="vanished">%1 选项</translation>
    </message>
    <message>
        <source>must be one character, such as &quot;,&quot; or &quot;;&quot;</source>
        <translation type="vanished">必须是单个字符，例如 &quot;,&quot; 或 &quot;;&quot;</translation>
    </message>
    <message>
        <source>model field</source>
        <translation type="vanished">模型字段</translation>
    </message>
    <message>
        <source>must be the file&apos;s SHA-256 as 64 lowercase hex digits (hips run fills it in; remove it)</source>
        <translation type="vanished">必须是该文件的 SHA-256，即 64 个小写十六进制数字（hips run 会自动填写；请删除它）</translation>
    </message>
    <message>
        <source>must list each tensor&apos;s element count, a whole number in [1, 4e9]</source>
        <translation type="vanished">必须列出每个张量的元素个数，每个为 [1, 4e9] 内的整数</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a built-in model; use one of: %2, or {&quot;torchscript&quot;: &quot;/path/model.pt&quot;} for a model saved from PyTorch</source>
        <translation type="vanished">“%1”不是内置模型；请使用以下之一：%2，或对从 PyTorch 保存的模型使用 {&quot;torchscript&quot;: &quot;/path/model.pt&quot;}</translation>
    </message>
    <message>
        <source>must be [features] or [channels, height, width], whole numbers in [1, 65536]</source>
        <translation type="vanished">必须是 [特征数] 或 [通道数, 高度, 宽度]，均为 [1, 65536] 内的整数</translation>
    </message>
    <message>
        <source>must be [features] or [channels, height, width]</source>
        <translation type="vanished">必须是 [特征数] 或 [通道数, 高度, 宽度]</translation>
    </message>
    <message>
        <source>: data path</source>
        <translation type="vanished">：数据路径</translation>
    </message>
    <message>
        <source>%1: data path &apos;%2&apos; is relative; write the absolute path on the party&apos;s hosts</source>
        <translation type="vanished">%1：数据路径“%2”是相对路径；请写出它在参与方主机上的绝对路径</translation>
    </message>
    <message>
        <source>: data option </source>
        <translation type="vanished">：数据选项 </translation>
    </message>
    <message>
        <source>%1: holdout %2 is not a fraction in (0, 0.9]; give the share of samples the party tests on, e.g. 0.1</source>
        <translation type="vanished">%1：holdout %2 不是 (0, 0.9] 内的比例；请给出参与方用于测试的样本比例，例如 0.1</translation>
    </message>
    <message>
        <source>party &apos;%1&apos; reads %2 and party &apos;%3&apos; reads %4, one inside the other: a party&apos;s data is its own and only its hosts read it; give each party a path of its own</source>
        <translation type="vanished">参与方“%1”读取 %2，参与方“%3”读取 %4，其中一个位于另一个之内：参与方的数据只属于它自己，只有它的主机读取；请为每个参与方指定各自的路径</translation>
    </message>
    <message>
        <source>the model file</source>
        <translation type="vanished">模型文件</translation>
    </message>
    <message>
        <source>the built-in models take square images, not %1 x %2; resize the images, or bring your own model as TorchScript</source>
        <translation type="vanished">内置模型只接受方形图像，而不是 %1 x %2；请调整图像尺寸，或以 TorchScript 形式提供自己的模型</translation>
    </message>
    <message>
        <source>a regression trains on the parties&apos; own data: give each party a &quot;data&quot; source (csv, npy or npz with float targets) and training.evaluation_data</source>
        <translation type="vanished">回归任务使用各参与方自己的数据训练：请为每个参与方提供 &quot;data&quot; 数据源（带浮点目标值的 csv、npy 或 npz），并设置 training.evaluation_data</translation>
    </message>
    <message>
        <source>a regression reads float targets from csv, npy or npz; %1 holds class labels</source>
        <translation type="vanished">回归任务从 csv、npy 或 npz 读取浮点目标值；%1 存放的是类别标签</translation>
    </message>
    <message>
        <source>a regression&apos;s targets are numbers, not classes: remove &quot;classes&quot;</source>
        <translation type="vanished">回归任务的目标值是数值，而不是类别：请删除 &quot;classes&quot;</translation>
    </message>
    <message>
        <source>partition %1 splits by class, and a regression has none: use iid (each party&apos;s own data is its own split already)</source>
        <translation type="vanished">划分方式 %1 按类别划分，而回归任务没有类别：请使用 iid（每个参与方自己的数据本身就是它的那一份）</translation>
    </message>
    <message>
        <source>party &apos;%1&apos;</source>
        <translation type="vanished">参与方“%1”</translation>
    </message>
    <message>
        <source>host &apos;%1&apos;</source>
        <translation type="vanished">主机“%1”</translation>
    </message>
    <message>
        <source>host &apos;%1&apos; runs workers of %2 parties, and a party&apos;s data is its own: give each party its data instead of the host</source>
        <translation type="vanished">主机“%1”运行 %2 个参与方的工作节点，而参与方的数据只属于它自己：请把数据分别交给各参与方，而不是交给主机</translation>
    </message>
    <message>
        <source>evaluation_data</source>
        <translation type="vanished">evaluation_data</translation>
    </message>
    <message>
        <source>the master&apos;s test set is all test: holdout is for a party&apos;s data; remove it here</source>
        <translation type="vanished">主工作节点的测试集全部用于测试：holdout 只用于参与方的数据；请在这里删除它</translation>
    </message>
    <message>
        <source>%1 codes the workers of party &apos;%2&apos; over one data set: give the party one &quot;data&quot; source, not host &apos;%3&apos; a source of its own</source>
        <translation type="vanished">%1 基于同一个数据集对参与方“%2”的工作节点编码：请给该参与方一个 &quot;data&quot; 数据源，而不是给主机“%3”单独的数据源</translation>
    </message>
    <message>
        <source>party &apos;%1&apos; trains but has no data of its own, and other parties bring theirs: give it a &quot;data&quot; source, or remove every party&apos;s &quot;data&quot; to split the run&apos;s dataset over all</source>
        <translation type="vanished">参与方“%1”参与训练却没有自己的数据，而其他参与方带有各自的数据：请给它一个 &quot;data&quot; 数据源，或删除所有参与方的 &quot;data&quot;，以便将本次运行的数据集划分给所有参与方</translation>
    </message>
    <message>
        <source>the parties bring their own data: declare the master&apos;s test set as training.evaluation_data (a source like a party&apos;s &quot;data&quot;)</source>
        <translation type="vanished">各参与方带有自己的数据：请将主工作节点的测试集声明为 training.evaluation_data（与参与方的 &quot;data&quot; 形式相同的数据源）</translation>
    </message>
</context>
<context>
    <name>hips::DeploymentTable</name>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="11"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="11"/>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="11"/>
        <source>Time</source>
        <translation>用时</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="11"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="18"/>
        <source>Each host&apos;s deployment: the agent is copied over SSH and started, then it completes a CURVE handshake with this controller</source>
        <translation>每台主机的部署：通过 SSH 复制并启动代理，然后它与本控制器完成 CURVE 握手</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="29"/>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="48"/>
        <location filename="../ui/run/DeploymentTable.cpp" line="55"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="54"/>
        <source>deployed</source>
        <translation>已部署</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="54"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="56"/>
        <source>agent ready</source>
        <translation>代理就绪</translation>
    </message>
    <message>
        <location filename="../ui/run/DeploymentTable.cpp" line="67"/>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
</context>
<context>
    <name>hips::Designer</name>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="34"/>
        <source>Palette — drag onto the canvas</source>
        <translation>组件面板 — 拖放到画布上</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="43"/>
        <source>Validation</source>
        <translation>校验</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="147"/>
        <source>No problems: ready to run</source>
        <translation>没有问题：可以运行</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="147"/>
        <source>No problems in the topology; see the note below</source>
        <translation>拓扑没有问题；请看下面的提示</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="160"/>
        <source>Delete %1</source>
        <translation>删除 %1</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/designer/Designer.cpp" line="160"/>
        <source>Delete %n items</source>
        <translation>
            <numerusform>删除 %n 项</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="168"/>
        <source>party %1</source>
        <translation>参与方 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="169"/>
        <source>host %1 of %2</source>
        <translation>%2 的主机 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="170"/>
        <source>the scheduler of %1</source>
        <translation>%1 的调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="171"/>
        <source>server %1 of %2</source>
        <translation>%2 的服务器 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="172"/>
        <source>the master worker</source>
        <translation>主工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="173"/>
        <source>workers %1 of %2</source>
        <translation>%2 的工作节点组 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="174"/>
        <source>the state service</source>
        <translation>状态服务</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/designer/Designer.cpp" line="181"/>
        <source>Copied %n items</source>
        <translation>
            <numerusform>已复制 %n 项</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="189"/>
        <source>Nothing to paste: copy parties or worker groups</source>
        <translation>没有可粘贴的内容：请先复制参与方或工作节点组</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="198"/>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="205"/>
        <source>&amp;Edit properties</source>
        <translation>编辑属性(&amp;E)</translation>
    </message>
    <message>
        <location filename="../ui/designer/Designer.cpp" line="209"/>
        <source>&amp;Add here</source>
        <translation>在此添加(&amp;A)</translation>
    </message>
</context>
<context>
    <name>hips::DesignerScene</name>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="289"/>
        <source>%1 Mbit/s · %2 ms</source>
        <translation>%1 Mbit/s · %2 毫秒</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="290"/>
        <source>%1 inside</source>
        <translation>参与方内 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="334"/>
        <source>Add party</source>
        <translation>添加参与方</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="338"/>
        <source>Add host</source>
        <translation>添加主机</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="342"/>
        <source>Add scheduler</source>
        <translation>添加调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="343"/>
        <source>Add server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="344"/>
        <source>Add workers</source>
        <translation>添加工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="345"/>
        <source>Add master worker</source>
        <translation>添加主工作节点</translation>
    </message>
    <message>
        <source>Add %1</source>
        <translation type="vanished">添加 %1</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="448"/>
        <source>Move party</source>
        <translation>移动参与方</translation>
    </message>
    <message>
        <location filename="../ui/designer/DesignerScene.cpp" line="453"/>
        <source>Move role to %1</source>
        <translation>将角色移动到 %1</translation>
    </message>
</context>
<context>
    <name>hips::HistoryPanel</name>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="78"/>
        <source>Test accuracy of the selected runs</source>
        <translation>所选运行的测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="78"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="79"/>
        <source>Show in charts</source>
        <translation>在图表中显示</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="80"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="81"/>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="82"/>
        <source>Open topology</source>
        <translation>打开拓扑</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="83"/>
        <source>Reattach</source>
        <translation>重新接管</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="84"/>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="85"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="111"/>
        <source>Filter: text, or settings as mode=esync learning_rate&lt;0.1 slowdown&gt;=2</source>
        <translation>筛选：文本，或设置条件，如 mode=esync learning_rate&lt;0.1 slowdown&gt;=2</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="113"/>
        <source>Every word must match: text in the id, name, status, reason, tags or notes, or a condition on a setting (=, !=, &lt;, &lt;=, &gt;, &gt;=; numbers compare as numbers). A setting is named as History&apos;s compare table names it, or by its last part: slowdown matches party2.workers[0].slowdown</source>
        <translation>每个词都必须匹配：编号、名称、状态、原因、标签或备注中的文本，或对某个设置的条件（=、!=、&lt;、&lt;=、&gt;、&gt;=；数字按数值比较）。设置的名称与历史对比表中的相同，也可只写最后一段：slowdown 匹配 party2.workers[0].slowdown</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="131"/>
        <source>Show the selected run in the charts; with several selected, the first, and the others over it, dashed, on every chart</source>
        <translation>在图表中显示所选运行；选中多个时显示第一个，其余以虚线叠加在每张图表上</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="133"/>
        <source>Open the selected run&apos;s directory: its logs (every role&apos;s), model, checkpoints and metrics</source>
        <translation>打开所选运行的目录：其日志（每个角色的）、模型、检查点和指标</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="138"/>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="61"/>
        <source>Group by</source>
        <translation>分组</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="139"/>
        <source>Group the runs by a setting: a column of its values, the list sorted by them</source>
        <translation>按某个设置对运行分组：增加一列该设置的值，并按其排序列表</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="151"/>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="151"/>
        <source>Wall-clock time</source>
        <translation>挂钟时间</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="151"/>
        <source>Time since start</source>
        <translation>自开始以来的时间</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="158"/>
        <source>X axis:</source>
        <translation>X 轴：</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="170"/>
        <source>Selected runs</source>
        <translation>所选运行</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="171"/>
        <source>Settings against score</source>
        <translation>设置与得分</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="173"/>
        <source>Every run listed: an axis per setting that differs, the final score last; click a line to select its run</source>
        <translation>列出的每个运行：每个不同的设置一条轴，最终得分在最后；点击一条线即选中其运行</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="209"/>
        <source>Run %1&apos;s directory %2 is gone</source>
        <translation>运行 %1 的目录 %2 已不存在</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="212"/>
        <source>No file manager opened %1</source>
        <translation>没有文件管理器打开 %1</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="247"/>
        <source>The history could not be read: %1</source>
        <translation>无法读取历史记录：%1</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="361"/>
        <location filename="../ui/history/HistoryPanel.cpp" line="473"/>
        <source>A run under way cannot be deleted: stop it first</source>
        <translation>进行中的运行不能删除：请先停止它</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="457"/>
        <source>Delete %1 and all their rows from the history?</source>
        <translation>从历史中删除 %1 及其所有记录？</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/history/HistoryPanel.cpp" line="464"/>
        <source>Also delete their run directories (%n folder(s): model, logs, checkpoints)</source>
        <translation>
            <numerusform>同时删除它们的运行目录（%n 个文件夹：模型、日志、检查点）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/history/HistoryPanel.cpp" line="468"/>
        <source>%n run directory(s):
%1</source>
        <translation>
            <numerusform>%n 个运行目录：
%1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="482"/>
        <source>These run directories could not be deleted:
%1</source>
        <translation>以下运行目录无法删除：
%1</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/history/HistoryPanel.cpp" line="483"/>
        <source>Deleted %n run(s) and their run directories</source>
        <translation>
            <numerusform>已删除 %n 个运行及其运行目录</numerusform>
        </translation>
    </message>
    <message>
        <source>Best accuracy</source>
        <translation type="vanished">最佳准确率</translation>
    </message>
    <message>
        <source>Final accuracy</source>
        <translation type="vanished">最终准确率</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <source>Rounds</source>
        <translation>轮次数</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <location filename="../ui/history/HistoryPanel.cpp" line="146"/>
        <source>MB across parties</source>
        <translation>跨参与方流量（MB）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="109"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Filter by id, name, status, reason, tags or notes</source>
        <translation type="vanished">按编号、名称、状态、原因、标签或备注筛选</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="120"/>
        <source>Open the selected run&apos;s topology and settings in the designer, to run it again</source>
        <translation>在设计器中打开所选运行的拓扑和设置，以便再次运行</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="123"/>
        <source>Take up the selected run, still going on its agents after its controller went away (as hips attach does)</source>
        <translation>接管所选运行：其控制器已离开，但代理仍在继续运行它（与 hips attach 相同）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="127"/>
        <source>Go on with the selected run, which stopped, failed or was interrupted, from its last checkpoint (as hips run --resume does); a finished run, with more rounds</source>
        <translation>从最近的检查点继续所选的已停止、失败或中断的运行（与 hips run --resume 相同）；已完成的运行可增加轮次后继续</translation>
    </message>
    <message>
        <source>Go on with the selected run, which stopped, failed or was interrupted, from its last checkpoint (as hips run --resume does)</source>
        <translation type="vanished">从最近的检查点继续所选的已停止、失败或中断的运行（与 hips run --resume 相同）</translation>
    </message>
    <message>
        <source>Test accuracy</source>
        <translation type="vanished">测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="92"/>
        <source>Best score</source>
        <translation>最佳得分</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="93"/>
        <source>Final score</source>
        <translation>最终得分</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="98"/>
        <source>Test accuracy; for a regression, test RMSE (lower is better)</source>
        <translation>测试准确率；回归任务为测试 RMSE（越低越好）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="146"/>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="146"/>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="146"/>
        <source>Test accuracy (or RMSE)</source>
        <translation>测试准确率（或 RMSE）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="147"/>
        <source>What the chart compares for the selected runs</source>
        <translation>图表为所选运行比较的指标</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="155"/>
        <source>Compare:</source>
        <translation>比较：</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="168"/>
        <source>The settings that differ between the selected runs</source>
        <translation>所选运行之间不同的设置</translation>
    </message>
    <message>
        <source>its controller ended before the run did (killed, or the machine stopped)</source>
        <translation type="vanished">其控制器在运行结束前退出（被终止，或机器停止）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="303"/>
        <source>The history is busy (another program is writing to it); the change is stored as soon as it is free</source>
        <translation>历史记录正忙（另一个程序正在写入）；一旦空闲，更改即会保存</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="310"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="311"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="312"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="313"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="314"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="341"/>
        <source>no history is open</source>
        <translation>未打开任何历史记录</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="365"/>
        <source>%1 of the selected runs</source>
        <translation>所选运行的%1</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="401"/>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="424"/>
        <source>every setting</source>
        <translation>所有设置</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="425"/>
        <source>the same</source>
        <translation>相同</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="453"/>
        <source>run %1 (%2)</source>
        <translation>运行 %1（%2）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="456"/>
        <location filename="../ui/history/HistoryPanel.cpp" line="473"/>
        <location filename="../ui/history/HistoryPanel.cpp" line="482"/>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n run(s) and all their rows from the history?</source>
        <translation type="vanished">
            <numerusform>要从历史中删除 %n 个运行及其全部数据行吗？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/history/HistoryPanel.cpp" line="484"/>
        <source>Deleted %n run(s)</source>
        <translation>
            <numerusform>已删除 %n 个运行</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="491"/>
        <source>; nothing written</source>
        <translation>；未写入任何内容</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="501"/>
        <location filename="../ui/history/HistoryPanel.cpp" line="506"/>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="502"/>
        <source>Reports (*.pdf *.html *.csv *.json)</source>
        <translation>报告 (*.pdf *.html *.csv *.json)</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanel.cpp" line="505"/>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="43"/>
        <source>No grouping</source>
        <translation>不分组</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="56"/>
        <source>(every run listed has the same settings)</source>
        <translation>（列出的运行设置全部相同）</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="61"/>
        <source>Group by: %1</source>
        <translation>分组：%1</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="98"/>
        <source>final RMSE</source>
        <translation>最终 RMSE</translation>
    </message>
    <message>
        <location filename="../ui/history/HistoryPanelSettings.cpp" line="98"/>
        <source>final accuracy</source>
        <translation>最终准确率</translation>
    </message>
</context>
<context>
    <name>hips::LiveChart</name>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="93"/>
        <source>Drag to zoom, right-click to zoom out; click a legend entry to hide its line</source>
        <translation>拖动以放大，右键单击以缩小；单击图例项可隐藏对应曲线</translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="vanished">导出</translation>
    </message>
    <message>
        <source>Save this chart as a PNG picture, or its points as CSV</source>
        <translation type="vanished">将此图表保存为 PNG 图片，或将其数据点保存为 CSV</translation>
    </message>
    <message>
        <source>Save as PNG…</source>
        <translation type="vanished">保存为 PNG…</translation>
    </message>
    <message>
        <source>Save points as CSV…</source>
        <translation type="vanished">将数据点保存为 CSV…</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="297"/>
        <source>time of day</source>
        <translation>时刻</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="302"/>
        <source>round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="302"/>
        <source>seconds since start</source>
        <translation>自开始以来的秒数</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="395"/>
        <source>cannot draw the chart to write %1</source>
        <translation>无法绘制图表以写入 %1</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="474"/>
        <source>%1: not evaluated</source>
        <translation>%1：未评估</translation>
    </message>
    <message>
        <source>cannot write %1 (is the folder writable?)</source>
        <translation type="vanished">无法写入 %1（文件夹可写吗？）</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation type="vanished">无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation type="vanished">导出图表</translation>
    </message>
    <message>
        <source>PNG pictures (*.png)</source>
        <translation type="vanished">PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation type="vanished">CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="447"/>
        <source>round %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <location filename="../ui/charts/LiveChart.cpp" line="449"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
</context>
<context>
    <name>hips::LogPane</name>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="58"/>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="59"/>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="60"/>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="65"/>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="65"/>
        <source>Process</source>
        <translation>进程</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="65"/>
        <source>Level</source>
        <translation>级别</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="65"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="97"/>
        <source>All levels</source>
        <translation>所有级别</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="98"/>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="99"/>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="100"/>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="101"/>
        <source>Filter text</source>
        <translation>筛选文本</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="114"/>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="140"/>
        <source>All processes</source>
        <translation>所有进程</translation>
    </message>
    <message>
        <location filename="../ui/run/LogPane.cpp" line="141"/>
        <source>controller</source>
        <translation>控制器</translation>
    </message>
</context>
<context>
    <name>hips::MainWindow</name>
    <message>
        <location filename="../ui/MainWindow.cpp" line="64"/>
        <source>Design</source>
        <translation>设计</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="65"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="66"/>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="67"/>
        <source>History</source>
        <translation>历史</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="72"/>
        <source>Run history unavailable: %1</source>
        <translation>运行历史不可用：%1</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="148"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="149"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="150"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="151"/>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="152"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="153"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="167"/>
        <source>&amp;New topology</source>
        <translation>新建拓扑(&amp;N)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="168"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="169"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="170"/>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="171"/>
        <source>Save &amp;as…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="171"/>
        <source>Ctrl+Shift+S</source>
        <translation>Ctrl+Shift+S</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="173"/>
        <source>&amp;Export report of selected run…</source>
        <translation>导出所选运行的报告(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="173"/>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="175"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="178"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="181"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="187"/>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="188"/>
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="189"/>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="190"/>
        <source>Select &amp;all</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="192"/>
        <source>&amp;Fit topology</source>
        <translation>适应拓扑大小(&amp;F)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="192"/>
        <source>Ctrl+0</source>
        <translation>Ctrl+0</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="201"/>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="202"/>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="207"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="221"/>
        <source>&amp;Start all</source>
        <translation>全部启动(&amp;S)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="221"/>
        <source>F5</source>
        <translation>F5</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="225"/>
        <source>S&amp;top all</source>
        <translation>全部停止(&amp;T)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="225"/>
        <source>Shift+F5</source>
        <translation>Shift+F5</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="235"/>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="236"/>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="238"/>
        <source>&amp;About HiPS Studio</source>
        <translation>关于 HiPS Studio(&amp;A)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="260"/>
        <source>1 problem in the topology: %1</source>
        <translation>拓扑中有 1 个问题：%1</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="260"/>
        <source>%1 problems in the topology; the first: %2</source>
        <translation>拓扑中有 %1 个问题；第一个：%2</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="263"/>
        <source>Topology valid: %1, %2</source>
        <translation>拓扑有效：%1，%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/MainWindow.cpp" line="264"/>
        <source>%n process(es)</source>
        <translation>
            <numerusform>%n 个进程</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/MainWindow.cpp" line="265"/>
        <source>%n training worker(s)</source>
        <translation>
            <numerusform>%n 个训练工作节点</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="266"/>
        <source>; the run under way goes on with the topology it started with</source>
        <translation>；进行中的运行仍使用其启动时的拓扑</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="344"/>
        <location filename="../ui/MainWindow.cpp" line="351"/>
        <source>Resume</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="344"/>
        <source>Run %1 finished its %2 rounds. Go on to how many rounds?</source>
        <translation>运行 %1 已完成其 %2 个轮次。继续到多少个轮次？</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="351"/>
        <source>Run %1 cannot be resumed: %2</source>
        <translation>无法恢复运行 %1：%2</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="397"/>
        <source>; run %1 cannot be compared: %2</source>
        <translation>；运行 %1 无法对比：%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/MainWindow.cpp" line="404"/>
        <source>Showing run %1 (%2): %n round(s)</source>
        <translation>
            <numerusform>正在显示运行 %1（%2）：%n 个轮次</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="405"/>
        <source>; the run under way shows again once chosen in History</source>
        <translation>；正在进行的运行在“历史”中选中后会再次显示</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="554"/>
        <source>Stopping the run; the window closes once it has stopped (close it again to quit now)</source>
        <translation>正在停止运行；运行停止后窗口将关闭（再次关闭可立即退出）</translation>
    </message>
    <message>
        <source>Topology valid: %1 processes, %2 training workers</source>
        <translation type="vanished">拓扑有效：%1 个进程，%2 个训练工作节点</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="273"/>
        <location filename="../ui/MainWindow.cpp" line="413"/>
        <source>untitled</source>
        <translation>未命名</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="281"/>
        <location filename="../ui/MainWindow.cpp" line="327"/>
        <location filename="../ui/MainWindow.cpp" line="423"/>
        <source>Open topology</source>
        <translation>打开拓扑</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="281"/>
        <source>Cannot open %1:
%2</source>
        <translation>无法打开 %1：
%2</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="314"/>
        <source>local baseline (run %1)</source>
        <translation>本地基线（运行 %1）</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="324"/>
        <location filename="../ui/MainWindow.cpp" line="360"/>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="327"/>
        <location filename="../ui/MainWindow.cpp" line="362"/>
        <source>Run %1&apos;s topology cannot be read:
%2</source>
        <translation>无法读取运行 %1 的拓扑：
%2</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="334"/>
        <source>Opened the topology of run %1; Start all runs it again</source>
        <translation>已打开运行 %1 的拓扑；“全部启动”将再次运行它</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="362"/>
        <source>Reattach</source>
        <translation>重新接管</translation>
    </message>
    <message>
        <source>Showing run %1 (%2): %3 rounds</source>
        <translation type="vanished">正在显示运行 %1（%2）：%3 个轮次</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="424"/>
        <source>Topologies (*.json);;All files (*)</source>
        <translation>拓扑 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="431"/>
        <location filename="../ui/MainWindow.cpp" line="454"/>
        <source>Save topology</source>
        <translation>保存拓扑</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="436"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="454"/>
        <source>Topologies (*.json)</source>
        <translation>拓扑 (*.json)</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="461"/>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="461"/>
        <source>Save the changes to the topology first?</source>
        <translation>是否先保存对拓扑的更改？</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="485"/>
        <source>Select one run in the history to export its report</source>
        <translation>请在历史中选择一个运行以导出其报告</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation type="vanished">导出报告</translation>
    </message>
    <message>
        <source>Reports (*.pdf *.html *.csv *.json)</source>
        <translation type="vanished">报告 (*.pdf *.html *.csv *.json)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="vanished">已写入 %1</translation>
    </message>
    <message>
        <source>The guide is not in this build; see README.md beside the sources.</source>
        <translation type="vanished">此版本未包含指南；请参阅源代码旁的 README.md。</translation>
    </message>
    <message>
        <source>Back</source>
        <translation type="vanished">后退</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation type="vanished">目录</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="21"/>
        <source>HiPS Studio — user guide</source>
        <translation>HiPS Studio — 用户指南</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="36"/>
        <source>Zoom the canvas</source>
        <translation>缩放画布</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="36"/>
        <source>Ctrl+wheel</source>
        <translation>Ctrl+滚轮</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="37"/>
        <source>Pan the canvas</source>
        <translation>平移画布</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="37"/>
        <source>Middle button, or Space+drag</source>
        <translation>中键，或 空格+拖动</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="38"/>
        <source>Zoom a chart / zoom out</source>
        <translation>缩放图表 / 缩小</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="38"/>
        <source>Drag / right-click</source>
        <translation>拖动 / 右键</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="39"/>
        <source>Edit a run&apos;s name, tags or notes</source>
        <translation>编辑运行的名称、标签或备注</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="39"/>
        <source>Double-click or F2 in History</source>
        <translation>在历史中双击或按 F2</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="46"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="46"/>
        <source>Shortcut</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="57"/>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="74"/>
        <source>About HiPS Studio</source>
        <translation>关于 HiPS Studio</translation>
    </message>
    <message>
        <location filename="../ui/MainWindowHelp.cpp" line="75"/>
        <source>&lt;h3&gt;HiPS Studio %1&lt;/h3&gt;&lt;p&gt;Train one model across parties with a two-layer parameter server; only aggregates cross party boundaries.&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;ZeroMQ&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;libssh&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;SQLite&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;h3&gt;HiPS Studio %1&lt;/h3&gt;&lt;p&gt;借助双层参数服务器，由多个参与方协同训练同一个模型；只有聚合结果会跨越参与方边界。&lt;/p&gt;&lt;table&gt;&lt;tr&gt;&lt;td&gt;Qt&lt;/td&gt;&lt;td&gt;%2&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;LibTorch&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;ZeroMQ&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;libssh&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;SQLite&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="510"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="510"/>
        <source>Stop the run first: switching the language rebuilds the window.</source>
        <translation>请先停止运行：切换语言会重建窗口。</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="549"/>
        <source>A run is under way</source>
        <translation>有运行正在进行</translation>
    </message>
    <message>
        <location filename="../ui/MainWindow.cpp" line="549"/>
        <source>Stop the run and quit?</source>
        <translation>要停止运行并退出吗？</translation>
    </message>
</context>
<context>
    <name>hips::Palette</name>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="11"/>
        <source>Party</source>
        <translation>参与方</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="11"/>
        <source>A party: its own scheduler, server and workers</source>
        <translation>参与方：拥有自己的调度器、服务器和工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="12"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="12"/>
        <source>A machine; drop it onto a party</source>
        <translation>一台机器；请将其拖放到参与方上</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="13"/>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="13"/>
        <source>Rendezvous, barriers and heartbeats of a party</source>
        <translation>负责参与方的汇合、屏障同步与心跳</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="14"/>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="15"/>
        <source>Aggregates its party&apos;s workers (global server in the central party)</source>
        <translation>聚合本参与方工作节点的更新（在中心参与方中为全局服务器）</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="16"/>
        <source>Master worker</source>
        <translation>主工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="17"/>
        <source>Initialises and evaluates the model (central party)</source>
        <translation>初始化并评估模型（中心参与方）</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="18"/>
        <source>Workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/Palette.cpp" line="18"/>
        <source>A group of training workers on one host</source>
        <translation>同一主机上的一组训练工作节点</translation>
    </message>
</context>
<context>
    <name>hips::ParallelCoordinates</name>
    <message>
        <location filename="../ui/history/ParallelCoordinates.cpp" line="156"/>
        <source>Runs side by side by their settings: with two or more runs in the list</source>
        <translation>按设置并排比较运行：列表中需有两个或更多运行</translation>
    </message>
    <message>
        <location filename="../ui/history/ParallelCoordinates.cpp" line="157"/>
        <source>The runs listed have the same settings</source>
        <translation>列出的运行设置相同</translation>
    </message>
</context>
<context>
    <name>hips::ProcessTableModel</name>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="37"/>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="38"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="39"/>
        <source>exited</source>
        <translation>已退出</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="40"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="41"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="42"/>
        <source>restarting</source>
        <translation>正在重启</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="193"/>
        <source>host %1 could not be deployed: %2</source>
        <translation>主机 %1 无法部署：%2</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="203"/>
        <source>not started: %1</source>
        <translation>未启动：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="217"/>
        <source>This role runs in process %1 with other roles (hips simulate runs every role in one process): its CPU and memory are on the process&apos;s first row.</source>
        <translation>此角色与其他角色同在进程 %1 中运行（hips simulate 在一个进程中运行所有角色）：其 CPU 和内存显示在该进程的第一行。</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="221"/>
        <source>This role reports only when something changes (a scheduler: its rendezvous, a member going down or coming back). Its agent reports at once if it exits.</source>
        <translation>此角色只在有变化时报告（调度器：会合、成员下线或恢复）。它一旦退出，其代理会立即报告。</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="232"/>
        <source>not deployed</source>
        <translation>未部署</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="235"/>
        <source>%1 (signal %2)</source>
        <translation>%1（信号 %2）</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="236"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="237"/>
        <source>%1 (restarts: %2)</source>
        <translation>%1（已重启 %2 次）</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="240"/>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="243"/>
        <location filename="../ui/run/ProcessTableModel.cpp" line="246"/>
        <source>shared</source>
        <translation>共享</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="250"/>
        <source>%1 s ago</source>
        <translation>%1 秒前</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="250"/>
        <source>only on changes</source>
        <translation>仅在变化时</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="258"/>
        <source>Party</source>
        <translation>参与方</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="258"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="258"/>
        <source>Role</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="258"/>
        <source>Rank</source>
        <translation>序号</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="258"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="259"/>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="259"/>
        <source>Uptime</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="259"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="259"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location filename="../ui/run/ProcessTableModel.cpp" line="259"/>
        <source>Last heard</source>
        <translation>最近通信</translation>
    </message>
</context>
<context>
    <name>hips::PropertyPanel</name>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="207"/>
        <source>Set %1</source>
        <translation>设置%1</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="321"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="325"/>
        <source>Standby host</source>
        <translation>备用主机</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="335"/>
        <source>Where the master starts again, and evaluates from the newest model on, when its host is lost (fault_policy continue)</source>
        <translation>当主工作节点的主机丢失时，它在此重新启动，并从最新模型开始评估（fault_policy continue）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="338"/>
        <source>Where the state service starts again when its host is lost (fault_policy continue); the workers ask it there once their host&apos;s service stops answering</source>
        <translation>当状态服务的主机丢失时，它在此重新启动（fault_policy continue）；原主机上的服务不再应答后，工作节点会向这里询问</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="340"/>
        <source>Where this global server starts again, from the global scheduler&apos;s copy of its model, when its host is lost (fault_policy continue)</source>
        <translation>当该全局服务器的主机丢失时，它从全局调度器保存的模型副本在此重新启动（fault_policy continue）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="345"/>
        <source>&lt;b&gt;Topology and training&lt;/b&gt;</source>
        <translation>&lt;b&gt;拓扑与训练&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="348"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="355"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="358"/>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="46"/>
        <source>Data format</source>
        <translation>数据格式</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="61"/>
        <source>Data path (on the party&apos;s hosts)</source>
        <translation>数据路径（参与方主机上的）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="90"/>
        <source>none: the run&apos;s dataset</source>
        <translation>无：使用本次运行的数据集</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="107"/>
        <source>Check data</source>
        <translation>检查数据</translation>
    </message>
    <message>
        <source>reads the source here and shows its counts</source>
        <translation type="vanished">在本机读取数据源并显示其计数</translation>
    </message>
    <message>
        <source>party &apos;%1&apos; trains on host &apos;%2&apos;, another machine: its workers read the data there and report their counts as the run starts (hips history show: the data lines)</source>
        <translation type="vanished">参与方“%1”在另一台机器（主机“%2”）上训练：其工作节点在那里读取数据，并在运行开始时报告计数（见 hips history show 的 data 行）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="107"/>
        <source>reads the source on the party&apos;s host and shows its counts</source>
        <translation>在参与方的主机上读取数据源并显示其计数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="115"/>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="181"/>
        <source>reading %1 …</source>
        <translation>正在读取 %1 …</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="115"/>
        <source>reading %1 on host &apos;%2&apos; …</source>
        <translation>正在主机“%2”上读取 %1 …</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="121"/>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="127"/>
        <source>cannot use it: %1</source>
        <translation>无法使用：%1</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="165"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="169"/>
        <source>TorchScript file (torch.jit.save)</source>
        <translation>TorchScript 文件（torch.jit.save）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="177"/>
        <source>Check model</source>
        <translation>检查模型</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="177"/>
        <source>loads the file as the trainers will and shows its size</source>
        <translation>按训练进程的方式加载该文件并显示其规模</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="184"/>
        <source>cannot load it: %1</source>
        <translation>无法加载：%1</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="188"/>
        <source>Input per sample (C, H, W or features; empty: the dataset&apos;s)</source>
        <translation>每个样本的输入（C, H, W 或特征数；留空：使用数据集的）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="195"/>
        <source>the input is whole numbers: 1, 28, 28 for images, or 20 for 20 features</source>
        <translation>输入须为整数：图像如 1, 28, 28，20 个特征则写 20</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="199"/>
        <source>give channels, height and width (1, 28, 28), or one number of features</source>
        <translation>请给出通道数、高度和宽度（1, 28, 28），或一个特征数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="204"/>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="212"/>
        <source>Outputs (targets a sample)</source>
        <translation>输出数（每个样本的目标数）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="216"/>
        <source>Classes</source>
        <translation>类别数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="218"/>
        <source>&lt;b&gt;Test set of the master&lt;/b&gt;</source>
        <translation>&lt;b&gt;主工作节点的测试集&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelData.cpp" line="220"/>
        <source>none: the dataset&apos;s test split</source>
        <translation>无：使用数据集的测试划分</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="368"/>
        <source>Rounds</source>
        <translation>轮次数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="370"/>
        <source>Local iterations (0: use epochs)</source>
        <translation>本地迭代次数（0：按轮次）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="373"/>
        <source>Local epochs (0: use iterations)</source>
        <translation>本地轮次（0：按迭代次数）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="376"/>
        <source>Batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="379"/>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="382"/>
        <source>Momentum</source>
        <translation>动量</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="385"/>
        <source>Evaluate every (rounds)</source>
        <translation>评估间隔（轮次）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="388"/>
        <source>Checkpoint every (rounds, 0: never)</source>
        <translation>检查点间隔（轮，0：从不）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="391"/>
        <source>Central workers train</source>
        <translation>中心参与方工作节点参与训练</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="394"/>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="396"/>
        <source>Threads per role</source>
        <translation>每个角色的线程数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="399"/>
        <source>Synthetic samples</source>
        <translation>合成样本数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="402"/>
        <source>Heartbeat timeout (s)</source>
        <translation>心跳超时（秒）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="405"/>
        <source>Run goes on without its controller (s)</source>
        <translation>无控制器时运行继续（秒）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="37"/>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="43"/>
        <source>Aggregation (global)</source>
        <translation>聚合规则（全局）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="49"/>
        <source>Aggregation (parties)</source>
        <translation>聚合规则（参与方）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="56"/>
        <source>Hierarchy</source>
        <translation>层级</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="59"/>
        <source>Servers per party (key slicing)</source>
        <translation>每个参与方的服务器数（键切分）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="63"/>
        <source>Slice tensors from (floats)</source>
        <translation>切分张量的下限（浮点数个数）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="66"/>
        <source>Server optimizer</source>
        <translation>服务器优化器</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="73"/>
        <source>Compression (across parties)</source>
        <translation>压缩（跨参与方）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="80"/>
        <source>Compression (inside parties)</source>
        <translation>压缩（参与方内部）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="87"/>
        <source>FedProx μ (0: off)</source>
        <translation>FedProx μ（0：关闭）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="90"/>
        <source>Workers per round (0: all)</source>
        <translation>每轮工作节点数（0：全部）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="95"/>
        <source>client sampling: each round a seeded draw of this many training workers (a fraction below 1: that share of them) trains; the others sit the round out</source>
        <translation>客户端抽样：每轮按种子抽取这么多训练节点（小于 1：该比例的节点）参与训练；其余节点本轮不训练</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="100"/>
        <source>When a process dies</source>
        <translation>进程终止时</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="107"/>
        <source>Workers of a host run in</source>
        <translation>主机上的工作节点运行于</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="112"/>
        <source>per_worker: a process each; per_host: threads of one shared trainer (one LibTorch runtime; a crash takes the host&apos;s other workers along); auto: per_host where a host runs more than 8 workers</source>
        <translation>per_worker：每个工作节点一个进程；per_host：一个共享训练进程中的线程（一个 LibTorch 运行时；一次崩溃会带走该主机上的其他工作节点）；auto：主机上的工作节点多于 8 个时为 per_host</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="115"/>
        <source>Transport security</source>
        <translation>传输安全</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="119"/>
        <source>curve: ZeroMQ&apos;s CURVE seals every byte; sealed: CURVE keeps the identities and headers, and the models and updates go sealed with AES-256-GCM beside it (faster)</source>
        <translation>curve：由 ZeroMQ 的 CURVE 加密每一个字节；sealed：CURVE 保留身份与消息头，模型和更新在其旁用 AES-256-GCM 加密传输（更快）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="30"/>
        <source>Launcher</source>
        <translation>启动器</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="42"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="46"/>
        <source>Login host (submits the job)</source>
        <translation>登录主机（提交作业）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="72"/>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="122"/>
        <source>Partition</source>
        <translation>数据划分</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="73"/>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="74"/>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="75"/>
        <source>Tasks per node</source>
        <translation>每节点任务数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="76"/>
        <source>GPUs per node</source>
        <translation>每节点 GPU 数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="77"/>
        <source>Time limit (HH:MM:SS)</source>
        <translation>时间限制（HH:MM:SS）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="78"/>
        <source>Shared install directory</source>
        <translation>共享安装目录</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="79"/>
        <source>Queue patience (s)</source>
        <translation>排队耐心（秒）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="81"/>
        <source>sbatch options</source>
        <translation>sbatch 选项</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="90"/>
        <source>Separated by spaces, each --name=value, from: %1</source>
        <translation>以空格分隔，每项为 --name=value，可选：%1</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="145"/>
        <source>Differential privacy</source>
        <translation>差分隐私</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="154"/>
        <source>party: each party server clips its workers&apos; updates, sums them and adds Gaussian noise once, before anything leaves the party (central DP at the party); worker: each worker noises its own update (local DP)</source>
        <translation>party：每个参与方服务器裁剪其工作节点的更新、求和，并在任何数据离开参与方之前加一次高斯噪声（参与方处的中心化差分隐私）；worker：每个工作节点对自己的更新加噪（本地差分隐私）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="159"/>
        <source>Clip norm</source>
        <translation>裁剪范数</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="162"/>
        <source>Noise multiplier (0: auto from target ε)</source>
        <translation>噪声乘数（0：根据目标 ε 自动确定）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="169"/>
        <source>δ</source>
        <translation>δ</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="172"/>
        <source>Target ε (0: none)</source>
        <translation>目标 ε（0：无）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="180"/>
        <source>Secure aggregation</source>
        <translation>安全聚合</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="187"/>
        <source>each party server&apos;s sum goes up masked with keys it shares with the other party servers: the global server learns only the parties&apos; total</source>
        <translation>每个参与方服务器的和在上传前用它与其他参与方服务器共享的密钥加掩码：全局服务器只能得知各参与方的总和</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="191"/>
        <source>Shares that recover a party (0: a majority)</source>
        <translation>恢复一个参与方所需的份额数（0：多数）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelTraining.cpp" line="195"/>
        <source>a party that drops out has its masks recovered from this many other parties&apos; shares; fewer parties than this, colluding, learn nothing of its key</source>
        <translation>掉线参与方的掩码由这么多个其他参与方的份额恢复；少于此数的参与方即使串通也得不到它的密钥</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="199"/>
        <source>%1: not taken, the file would not open again: %2</source>
        <translation>%1：未采用，否则文件将无法再次打开：%2</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="408"/>
        <source>Agent silence limit (s)</source>
        <translation>代理静默上限（秒）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="417"/>
        <source>&lt;b&gt;Party&lt;/b&gt;</source>
        <translation>&lt;b&gt;参与方&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="420"/>
        <location filename="../ui/designer/PropertyPanel.cpp" line="462"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="423"/>
        <source>Central party</source>
        <translation>中心参与方</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="433"/>
        <source>WAN bandwidth (Mbit/s, 0: none)</source>
        <translation>广域网带宽（Mbit/s，0：不模拟）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="442"/>
        <source>WAN latency (ms)</source>
        <translation>广域网延迟（毫秒）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="448"/>
        <source>Workers per round (0: the run&apos;s)</source>
        <translation>每轮工作节点数（0：沿用运行设置）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanelLauncher.cpp" line="102"/>
        <source>Transport inside the party</source>
        <translation>参与方内的传输方式</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="459"/>
        <source>&lt;b&gt;Host&lt;/b&gt; (shared by every party on it)</source>
        <translation>&lt;b&gt;主机&lt;/b&gt;（由其上的所有参与方共享）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="472"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="474"/>
        <source>SSH port</source>
        <translation>SSH 端口</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="478"/>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="479"/>
        <source>Identity file</source>
        <translation>身份文件（私钥）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="480"/>
        <source>Install directory</source>
        <translation>安装目录</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="485"/>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="486"/>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="487"/>
        <source>Master worker</source>
        <translation>主工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="488"/>
        <source>State service</source>
        <translation>状态服务</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="489"/>
        <source>Worker group</source>
        <translation>工作节点组</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="498"/>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="504"/>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="517"/>
        <source>Workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="527"/>
        <source>Slowdown (×)</source>
        <translation>减速倍数 (×)</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="536"/>
        <source>Each local step takes this multiple of its compute time: a slower device, emulated</source>
        <translation>每个本地步骤耗时为其计算时间的这一倍数：用于模拟较慢的设备</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="538"/>
        <source>none (honest)</source>
        <translation>无（诚实）</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="540"/>
        <source>Adversary</source>
        <translation>攻击者</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="554"/>
        <source>Attack strength</source>
        <translation>攻击强度</translation>
    </message>
    <message>
        <location filename="../ui/designer/PropertyPanel.cpp" line="564"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
</context>
<context>
    <name>hips::RunCharts</name>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="26"/>
        <location filename="../ui/charts/RunCharts.cpp" line="168"/>
        <source>Test accuracy</source>
        <translation>测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="26"/>
        <location filename="../ui/charts/RunCharts.cpp" line="169"/>
        <location filename="../ui/charts/RunCharts.cpp" line="320"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="27"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="27"/>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="28"/>
        <source>Traffic per tier</source>
        <translation>各层级流量</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="28"/>
        <location filename="../ui/charts/RunCharts.cpp" line="35"/>
        <location filename="../ui/charts/RunCharts.cpp" line="415"/>
        <source>MB sent</source>
        <translation>发送量（MB）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="29"/>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="29"/>
        <location filename="../ui/charts/RunCharts.cpp" line="177"/>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="30"/>
        <source>Computing-time ratio: compute / (compute + communication)</source>
        <translation>计算时间占比：计算 / (计算 + 通信)</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="30"/>
        <source>ratio</source>
        <translation>占比</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="31"/>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="112"/>
        <source>Local steps per worker and round</source>
        <translation>每个工作节点每轮的本地步数</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="31"/>
        <source>steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="32"/>
        <location filename="../ui/charts/RunCharts.cpp" line="165"/>
        <source>Staleness of each push (asynchronous modes)</source>
        <translation>每次推送的陈旧度（异步模式）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="32"/>
        <source>versions behind</source>
        <translation>落后的版本数</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="33"/>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="113"/>
        <source>CPU per process (100 % = one core)</source>
        <translation>每个进程的 CPU（100 % = 一个核心）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="33"/>
        <source>% CPU</source>
        <translation>% CPU</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="34"/>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="114"/>
        <source>Memory per process</source>
        <translation>每个进程的内存</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="34"/>
        <source>MB resident</source>
        <translation>常驻内存 MB</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="35"/>
        <source>Traffic across parties, per party</source>
        <translation>各参与方的跨参与方流量</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="37"/>
        <source>Every worker</source>
        <translation>每个工作节点</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="41"/>
        <source>Log scale (loss)</source>
        <translation>对数刻度（损失）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="51"/>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="51"/>
        <source>Wall-clock time</source>
        <translation>挂钟时间</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="51"/>
        <source>Time since start</source>
        <translation>自开始以来的时间</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="53"/>
        <source>Cumulative</source>
        <translation>累计</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="53"/>
        <source>Rate (MB/s)</source>
        <translation>速率（MB/s）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="56"/>
        <source>A line per worker and per process; unticked, a line per party</source>
        <translation>每个工作节点和每个进程一条线；不勾选时每个参与方一条线</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="60"/>
        <source>EMA smoothing (debiased, as TensorBoard&apos;s); the raw line stays, faint</source>
        <translation>EMA 平滑（按 TensorBoard 的方式去偏）；原始曲线保留，以浅色显示</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="298"/>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="300"/>
        <source>%1 MB in the run (%2 by this round)</source>
        <translation>整个运行 %1 MB（截至本轮 %2）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="303"/>
        <source>&lt;h3&gt;Round %1&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;Test %10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Best so far&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Training loss&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Inside parties&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Across parties&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Throughput&lt;/td&gt;&lt;td&gt;%7 samples/s&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Computing-time ratio&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Elapsed&lt;/td&gt;&lt;td&gt;%9 s&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;%11</source>
        <translation>&lt;h3&gt;第 %1 轮&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;测试%10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;目前最佳&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;训练损失&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;参与方内部&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;跨参与方&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;吞吐量&lt;/td&gt;&lt;td&gt;%7 样本/秒&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;计算时间占比&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;已用时间&lt;/td&gt;&lt;td&gt;%9 秒&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;%11</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="356"/>
        <source>%1, across</source>
        <translation>%1，跨参与方</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Round %1&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;Test %10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Best so far&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Training loss&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Inside parties&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Across parties&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Throughput&lt;/td&gt;&lt;td&gt;%7 samples/s&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Computing-time ratio&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Elapsed&lt;/td&gt;&lt;td&gt;%9 s&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation type="vanished">&lt;h3&gt;第 %1 轮&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;测试%10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;目前最佳&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;训练损失&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;参与方内部&lt;/td&gt;&lt;td&gt;%5&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;跨参与方&lt;/td&gt;&lt;td&gt;%6&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;吞吐量&lt;/td&gt;&lt;td&gt;%7 样本/秒&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;计算时间占比&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;已用时间&lt;/td&gt;&lt;td&gt;%9 秒&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>EMA smoothing; the raw line stays, faint</source>
        <translation type="vanished">EMA 平滑；原始曲线以淡色保留</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="64"/>
        <source>Reset zoom</source>
        <translation>重置缩放</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="67"/>
        <source>X axis:</source>
        <translation>X 轴：</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="70"/>
        <source>Smoothing:</source>
        <translation>平滑：</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="76"/>
        <source>Traffic:</source>
        <translation>流量：</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="160"/>
        <source>&lt;p style=&apos;color:#777&apos;&gt;No rounds yet. Start a run, or open one from the history.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:#777&apos;&gt;尚无轮次。请启动一次运行，或从历史中打开一次运行。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="167"/>
        <source>test accuracy</source>
        <translation>测试准确率</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="173"/>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="174"/>
        <source>test loss</source>
        <translation>测试损失</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="175"/>
        <location filename="../ui/charts/RunCharts.cpp" line="412"/>
        <source>inside parties</source>
        <translation>参与方内部</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="176"/>
        <location filename="../ui/charts/RunCharts.cpp" line="413"/>
        <source>across parties</source>
        <translation>跨参与方</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="178"/>
        <source>computing-time ratio</source>
        <translation>计算时间占比</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="189"/>
        <source>Test RMSE (lower is better)</source>
        <translation>测试 RMSE（越低越好）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="190"/>
        <location filename="../ui/charts/RunCharts.cpp" line="320"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="191"/>
        <source>test RMSE</source>
        <translation>测试 RMSE</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="233"/>
        <source>Staleness: none in mode %1 (every push is of its round)</source>
        <translation>陈旧度：%1 模式下没有（每次推送都属于其本轮）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="250"/>
        <source>%1 (own held-out data)</source>
        <translation>%1（自有留出数据）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="276"/>
        <source>top-5 accuracy</source>
        <translation>top-5 准确率</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Round %1&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;Test %10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Best so far&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Training loss&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Inside parties&lt;/td&gt;&lt;td&gt;%5 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Across parties&lt;/td&gt;&lt;td&gt;%6 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Throughput&lt;/td&gt;&lt;td&gt;%7 samples/s&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Computing-time ratio&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Elapsed&lt;/td&gt;&lt;td&gt;%9 s&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation type="vanished">&lt;h3&gt;第 %1 轮&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;测试%10&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;目前最佳&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;训练损失&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;参与方内部&lt;/td&gt;&lt;td&gt;%5 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;跨参与方&lt;/td&gt;&lt;td&gt;%6 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;吞吐量&lt;/td&gt;&lt;td&gt;%7 样本/秒&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;计算时间占比&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;已用时间&lt;/td&gt;&lt;td&gt;%9 秒&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Round %1&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;Test accuracy&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Best so far&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Training loss&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Inside parties&lt;/td&gt;&lt;td&gt;%5 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Across parties&lt;/td&gt;&lt;td&gt;%6 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Throughput&lt;/td&gt;&lt;td&gt;%7 samples/s&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Computing-time ratio&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;Elapsed&lt;/td&gt;&lt;td&gt;%9 s&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation type="vanished">&lt;h3&gt;第 %1 轮&lt;/h3&gt;&lt;table cellpadding=&apos;3&apos;&gt;&lt;tr&gt;&lt;td&gt;测试准确率&lt;/td&gt;&lt;td&gt;&lt;b&gt;%2&lt;/b&gt;&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;目前最佳&lt;/td&gt;&lt;td&gt;%3&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;训练损失&lt;/td&gt;&lt;td&gt;%4&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;参与方内部&lt;/td&gt;&lt;td&gt;%5 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;跨参与方&lt;/td&gt;&lt;td&gt;%6 MB&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;吞吐量&lt;/td&gt;&lt;td&gt;%7 样本/秒&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;计算时间占比&lt;/td&gt;&lt;td&gt;%8&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;已用时间&lt;/td&gt;&lt;td&gt;%9 秒&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="374"/>
        <source>&lt;p style=&apos;color:#777&apos;&gt;The run is under way: its first round shows here as soon as it has trained.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:#777&apos;&gt;运行进行中：第一轮训练完成后即在此显示。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="381"/>
        <source>The Run tab&apos;s log has every process&apos;s messages.</source>
        <translation>“运行”页的日志中有每个进程的消息。</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="382"/>
        <source>Each process&apos;s log is in %1.</source>
        <translation>每个进程的日志在 %1 中。</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="383"/>
        <source>&lt;p style=&apos;color:#b00&apos;&gt;The run failed before its first round: %1&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:#b00&apos;&gt;运行在第一轮之前失败：%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p style=&apos;color:#b00&apos;&gt;The run failed before its first round: %1&lt;/p&gt;&lt;p style=&apos;color:#777&apos;&gt;The Run tab&apos;s log has every process&apos;s messages.&lt;/p&gt;</source>
        <translation type="vanished">&lt;p style=&apos;color:#b00&apos;&gt;运行在第一轮之前失败：%1&lt;/p&gt;&lt;p style=&apos;color:#777&apos;&gt;“运行”页的日志中有每个进程的消息。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="385"/>
        <source>&lt;p style=&apos;color:#777&apos;&gt;The run was stopped before its first round.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:#777&apos;&gt;运行在第一轮之前被停止。&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="396"/>
        <source>&lt;p&gt;Secure aggregation: the global server sees only the parties&apos; sum&lt;/p&gt;</source>
        <translation>&lt;p&gt;安全聚合：全局服务器只能看到各参与方的总和&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="398"/>
        <source>&lt;p&gt;Privacy: &lt;b&gt;ε %1&lt;/b&gt; (δ %2) spent by round %3, noise at the %4&lt;/p&gt;</source>
        <translation>&lt;p&gt;隐私：到第 %3 轮已花费 &lt;b&gt;ε %1&lt;/b&gt;（δ %2），噪声加在%4&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="402"/>
        <source>party servers</source>
        <translation>参与方服务器</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="402"/>
        <source>workers</source>
        <translation>工作节点</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunCharts.cpp" line="415"/>
        <source>MB/s sent</source>
        <translation>发送速率（MB/s）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="112"/>
        <source>Local steps per round (mean of each party&apos;s workers)</source>
        <translation>每轮本地步数（各参与方工作节点的平均值）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="113"/>
        <source>CPU per party (its processes together; 100 % = one core)</source>
        <translation>每个参与方的 CPU（其所有进程合计；100 % = 一个核心）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="114"/>
        <source>Memory per party (its processes together)</source>
        <translation>每个参与方的内存（其所有进程合计）</translation>
    </message>
    <message>
        <location filename="../ui/charts/RunChartsPerNode.cpp" line="145"/>
        <source>&lt;h4&gt;Per party&lt;/h4&gt;&lt;table cellpadding=&apos;2&apos;&gt;&lt;tr&gt;&lt;th align=&apos;left&apos;&gt;party&lt;/th&gt;&lt;th&gt;workers&lt;/th&gt;&lt;th&gt;data&lt;/th&gt;&lt;th&gt;trained&lt;/th&gt;&lt;th&gt;MB across&lt;/th&gt;&lt;th&gt;own test&lt;/th&gt;&lt;/tr&gt;%1&lt;/table&gt;</source>
        <translation>&lt;h4&gt;各参与方&lt;/h4&gt;&lt;table cellpadding=&apos;2&apos;&gt;&lt;tr&gt;&lt;th align=&apos;left&apos;&gt;参与方&lt;/th&gt;&lt;th&gt;工作节点&lt;/th&gt;&lt;th&gt;数据&lt;/th&gt;&lt;th&gt;已训练&lt;/th&gt;&lt;th&gt;跨参与方 MB&lt;/th&gt;&lt;th&gt;自有测试&lt;/th&gt;&lt;/tr&gt;%1&lt;/table&gt;</translation>
    </message>
</context>
<context>
    <name>hips::RunNotifier</name>
    <message>
        <location filename="../ui/run/RunNotifier.cpp" line="15"/>
        <source>Run %1 finished</source>
        <translation>运行 %1 已完成</translation>
    </message>
    <message>
        <location filename="../ui/run/RunNotifier.cpp" line="16"/>
        <source>Run %1 stopped</source>
        <translation>运行 %1 已停止</translation>
    </message>
    <message>
        <location filename="../ui/run/RunNotifier.cpp" line="17"/>
        <source>Run %1 failed</source>
        <translation>运行 %1 失败</translation>
    </message>
</context>
<context>
    <name>hips::RunPanel</name>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="57"/>
        <source>Unknown host key</source>
        <translation>未知的主机密钥</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="58"/>
        <source>The key of host &apos;%1&apos; is not known yet:
%2

Trust it and record it? Check the fingerprint with the host&apos;s administrator first.</source>
        <translation>主机“%1”的密钥尚不认识：
%2

信任并记录它吗？请先与该主机的管理员核对指纹。</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="65"/>
        <source>SSH</source>
        <translation>SSH</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="86"/>
        <source>Start all</source>
        <translation>全部启动</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="88"/>
        <source>Stop all</source>
        <translation>全部停止</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="121"/>
        <source>Double-click a process to see only its log</source>
        <translation>双击某个进程可仅查看其日志</translation>
    </message>
    <message>
        <source>finished after %1 rounds in %2 s: final test accuracy %3</source>
        <translation type="vanished">已完成 %1 个轮次，用时 %2 秒：最终测试准确率 %3</translation>
    </message>
    <message>
        <source>stopped after %1 rounds in %2 s (%3)</source>
        <translation type="vanished">已停止，完成 %1 个轮次，用时 %2 秒（%3）</translation>
    </message>
    <message numerus="yes">
        <source>finished after %n round(s) in %1 s: final test accuracy %2</source>
        <translation type="vanished">
            <numerusform>已完成 %n 个轮次，用时 %1 秒：最终测试准确率 %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/run/RunPanel.cpp" line="349"/>
        <source>finished after %n round(s) in %1 s: final test %2 %3</source>
        <translation>
            <numerusform>已完成 %n 个轮次，用时 %1 秒：最终测试 %2 %3</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="351"/>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="351"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/run/RunPanel.cpp" line="353"/>
        <source>stopped after %n round(s) in %1 s (%2)</source>
        <translation>
            <numerusform>已停止，完成 %n 个轮次，用时 %1 秒（%2）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="354"/>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="211"/>
        <location filename="../ui/run/RunPanel.cpp" line="259"/>
        <location filename="../ui/run/RunPanel.cpp" line="384"/>
        <source>Cannot start: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="87"/>
        <source>Simulate</source>
        <translation>模拟</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="100"/>
        <source>Start all runs every role in one process on a virtual clock (hips simulate): no host is reached, and the times are what the deployed run would take</source>
        <translation>“全部启动”在一个进程中按虚拟时钟运行所有角色（hips simulate）：不连接任何主机，时间为实际部署运行所需的时间</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="110"/>
        <source>Filter processes (party, role, state…)</source>
        <translation>筛选进程（参与方、角色、状态…）</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="373"/>
        <source>Reading the model file</source>
        <translation>正在读取模型文件</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="220"/>
        <source>reading the model file %1 …</source>
        <translation>正在读取模型文件 %1 …</translation>
    </message>
    <message numerus="yes">
        <location filename="../ui/run/RunPanel.cpp" line="233"/>
        <source>model file %1: %n tensor(s), SHA-256 %2…</source>
        <translation>
            <numerusform>模型文件 %1：%n 个张量，SHA-256 %2…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="263"/>
        <source>run directory: %1</source>
        <translation>运行目录：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="266"/>
        <source>simulated on a virtual clock: the times are what the deployed run would take</source>
        <translation>按虚拟时钟模拟：时间为实际部署运行所需的时间</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="272"/>
        <source>A run is under way: stop it before taking up another</source>
        <translation>已有运行正在进行：请先停止它再接管另一个</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="281"/>
        <location filename="../ui/run/RunPanel.cpp" line="282"/>
        <source>Cannot reattach: %1</source>
        <translation>无法重新接管：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="285"/>
        <source>took up run %1 from its agents</source>
        <translation>已从代理接管运行 %1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="291"/>
        <source>A run is under way: stop it before resuming another</source>
        <translation>有运行正在进行：请先停止它，再恢复其他运行</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="295"/>
        <location filename="../ui/run/RunPanel.cpp" line="308"/>
        <location filename="../ui/run/RunPanel.cpp" line="309"/>
        <source>Cannot resume: %1</source>
        <translation>无法恢复：%1</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="313"/>
        <source>resuming run %1 from the checkpoint of round %2 (run directory: %3)</source>
        <translation>从第 %2 轮的检查点恢复运行 %1（运行目录：%3）</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="334"/>
        <source>the start was cancelled while the model file was read</source>
        <translation>读取模型文件期间已取消启动</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="337"/>
        <source>stopped from HiPS Studio</source>
        <translation>已从 HiPS Studio 停止</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="359"/>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="360"/>
        <source>deploying</source>
        <translation>部署中</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="361"/>
        <source>starting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="362"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="363"/>
        <source>stopping</source>
        <translation>停止中</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="364"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="365"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="366"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../ui/run/RunPanel.cpp" line="383"/>
        <source>Deploy and start every process of the topology</source>
        <translation>部署并启动拓扑中的所有进程</translation>
    </message>
</context>
<context>
    <name>hips::RunStatus</name>
    <message>
        <location filename="../ui/run/RunStatus.cpp" line="47"/>
        <source>%1 · round %2 of %3 · %4 s</source>
        <translation>%1 · 第 %2 / %3 轮 · %4 秒</translation>
    </message>
    <message>
        <location filename="../ui/run/RunStatus.cpp" line="50"/>
        <source> · about %1 s left</source>
        <translation> · 约剩 %1 秒</translation>
    </message>
</context>
<context>
    <name>hips::TopologyDocument</name>
    <message>
        <source>cannot write %1: %2</source>
        <translation type="vanished">无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>hips::UserGuide</name>
    <message>
        <location filename="../ui/UserGuide.cpp" line="39"/>
        <source>The guide is not in this build; see README.md beside the sources.</source>
        <translation>此版本未包含指南；请参阅源代码旁的 README.md。</translation>
    </message>
    <message>
        <location filename="../ui/UserGuide.cpp" line="43"/>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <location filename="../ui/UserGuide.cpp" line="46"/>
        <source>Contents</source>
        <translation>目录</translation>
    </message>
    <message>
        <location filename="../ui/UserGuide.cpp" line="50"/>
        <source>The guide is in English only; the rest of HiPS Studio is translated.</source>
        <translation>本指南仅有英文版；HiPS Studio 的其余部分均已翻译。</translation>
    </message>
</context>
<context>
    <name>hips::WorkerTimeline</name>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="53"/>
        <source>computing</source>
        <translation>计算</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="54"/>
        <source>communicating</source>
        <translation>通信</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="55"/>
        <source>waiting</source>
        <translation>等待</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="69"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="90"/>
        <source>Time per worker in a round: no round yet</source>
        <translation>每个工作节点一轮的时间：尚无轮次</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="170"/>
        <source>Time per party in round %1 (the mean of its workers)</source>
        <translation>第 %1 轮各参与方的时间（其工作节点的平均值）</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="171"/>
        <source>Time per worker in round %1</source>
        <translation>第 %1 轮每个工作节点的时间</translation>
    </message>
    <message>
        <location filename="../ui/charts/WorkerTimeline.cpp" line="183"/>
        <source>cannot draw the chart to write %1</source>
        <translation>无法绘制图表以写入 %1</translation>
    </message>
</context>
</TS>
